/* Text that changes often (the running timer's seconds) drawn without a relayout. A GtkLabel
 * queues a resize at each new text; on X11 the resize reaches the toplevel, whose new size GDK
 * works out against the monitor's work area with synchronous requests to the X server
 * (_NET_WORKAREA, _NET_CURRENT_DESKTOP): several blocking round trips a second. Here a new text
 * only redraws; the size changes when the text grows wider or taller than it ever was. */

typedef struct {
    char *text;
} TimeTickingText;

static inline void time_ticking_text_free(gpointer data) {
    TimeTickingText *ticking = data;
    g_free(ticking->text);
    g_free(ticking);
}

/* The widget's font (its CSS: a style class such as title-1 applies), digits of one width. */
static inline PangoLayout *time_ticking_text_layout(GtkWidget *widget, const char *text) {
    PangoLayout *layout = gtk_widget_create_pango_layout(widget, text);
    PangoAttrList *attributes = pango_attr_list_new();
    pango_attr_list_insert(attributes, pango_attr_font_features_new("tnum=1"));
    pango_layout_set_attributes(layout, attributes);
    pango_attr_list_unref(attributes);
    return layout;
}

/* Grows the area to the text's size, as measured with the style in force (a text set before the
 * widget was on screen was measured without its CSS font). */
static inline void time_ticking_text_fit(GtkWidget *widget, int text_width, int text_height) {
    GtkDrawingArea *area = GTK_DRAWING_AREA(widget);
    if (text_width > gtk_drawing_area_get_content_width(area)) gtk_drawing_area_set_content_width(area, text_width);
    if (text_height > gtk_drawing_area_get_content_height(area)) gtk_drawing_area_set_content_height(area, text_height);
}

static inline gboolean time_ticking_text_refit(gpointer data) {
    GtkWidget *widget = data;
    TimeTickingText *ticking = g_object_get_data(G_OBJECT(widget), "time-ticking-text");
    PangoLayout *layout = time_ticking_text_layout(widget, ticking && ticking->text ? ticking->text : "");
    int text_width = 0, text_height = 0;
    pango_layout_get_pixel_size(layout, &text_width, &text_height);
    g_object_unref(layout);
    time_ticking_text_fit(widget, text_width, text_height);
    return G_SOURCE_REMOVE;
}

static inline void time_ticking_text_draw(GtkDrawingArea *area, cairo_t *cairo, int width, int height, gpointer data) {
    TimeTickingText *ticking = data;
    GtkWidget *widget = GTK_WIDGET(area);
    PangoLayout *layout = time_ticking_text_layout(widget, ticking->text ? ticking->text : "");
    int text_width = 0, text_height = 0;
    pango_layout_get_pixel_size(layout, &text_width, &text_height);
    GdkRGBA color;
    /* gtk_widget_get_color is GTK 4.10; Debian 12 has 4.8. */
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    gtk_style_context_get_color(gtk_widget_get_style_context(widget), &color);
    G_GNUC_END_IGNORE_DEPRECATIONS
    if (text_width > width || text_height > height) {
        /* Drawn before it was measured with its style: take the room once, after this frame. */
        g_idle_add_full(G_PRIORITY_DEFAULT_IDLE, time_ticking_text_refit, g_object_ref(widget), g_object_unref);
    }
    gdk_cairo_set_source_rgba(cairo, &color);
    cairo_move_to(cairo, (width - text_width) / 2.0, (height - text_height) / 2.0);
    pango_cairo_show_layout(cairo, layout);
    g_object_unref(layout);
}

static inline GtkWidget *time_gtk_ticking_text_new(void) {
    GtkWidget *area = gtk_drawing_area_new();
    TimeTickingText *ticking = g_new0(TimeTickingText, 1);
    g_object_set_data_full(G_OBJECT(area), "time-ticking-text", ticking, time_ticking_text_free);
    gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(area), time_ticking_text_draw, ticking, NULL);
    return area;
}

static inline void time_gtk_ticking_text_set(GtkWidget *widget, const char *text) {
    TimeTickingText *ticking = g_object_get_data(G_OBJECT(widget), "time-ticking-text");
    if (ticking == NULL || g_strcmp0(ticking->text, text) == 0) return;
    g_free(ticking->text);
    ticking->text = g_strdup(text);
    PangoLayout *layout = time_ticking_text_layout(widget, text);
    int text_width = 0, text_height = 0;
    pango_layout_get_pixel_size(layout, &text_width, &text_height);
    g_object_unref(layout);
    time_ticking_text_fit(widget, text_width, text_height);
    gtk_widget_queue_draw(widget);
}

static inline const char *time_gtk_ticking_text_get(GtkWidget *widget) {
    TimeTickingText *ticking = g_object_get_data(G_OBJECT(widget), "time-ticking-text");
    return ticking ? ticking->text : NULL;
}
