/// The keyboard shortcuts window (Ctrl+?), as GtkBuilder describes it.
enum ShortcutsWindow {
    static let xml = """
    <?xml version="1.0" encoding="UTF-8"?>
    <interface>
      <object class="GtkShortcutsWindow" id="shortcuts">
        <property name="modal">1</property>
        <child>
          <object class="GtkShortcutsSection">
            <property name="section-name">shortcuts</property>
            <child>
              <object class="GtkShortcutsGroup">
                <property name="title">General</property>
                <child><object class="GtkShortcutsShortcut"><property name="title">Undo</property><property name="accelerator">&lt;Control&gt;z</property></object></child>
                <child><object class="GtkShortcutsShortcut"><property name="title">Redo</property><property name="accelerator">&lt;Control&gt;&lt;Shift&gt;z</property></object></child>
                <child><object class="GtkShortcutsShortcut"><property name="title">Preferences</property><property name="accelerator">&lt;Control&gt;comma</property></object></child>
                <child><object class="GtkShortcutsShortcut"><property name="title">History</property><property name="accelerator">&lt;Control&gt;h</property></object></child>
                <child><object class="GtkShortcutsShortcut"><property name="title">Keyboard shortcuts</property><property name="accelerator">&lt;Control&gt;question</property></object></child>
                <child><object class="GtkShortcutsShortcut"><property name="title">Quit</property><property name="accelerator">&lt;Control&gt;q</property></object></child>
              </object>
            </child>
            <child>
              <object class="GtkShortcutsGroup">
                <property name="title">Views</property>
                <child><object class="GtkShortcutsShortcut"><property name="title">Next view</property><property name="accelerator">&lt;Control&gt;Page_Down</property></object></child>
                <child><object class="GtkShortcutsShortcut"><property name="title">Close a dialog</property><property name="accelerator">Escape</property></object></child>
              </object>
            </child>
          </object>
        </child>
      </object>
    </interface>
    """
}
