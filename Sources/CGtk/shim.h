#include <adwaita.h>
#include <gtk/gtk.h>
#include "ticking_text.h"

/* Macros and variadic functions Swift cannot call, as small functions GtkKit can. */

static inline void time_gtk_set_accessible_label(GtkWidget *widget, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

static inline void time_gtk_set_accessible_description(GtkWidget *widget, const char *text) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}

/* A box a screen reader meets as one label (named by its accessible label): the role is fixed
 * when the widget is made, and g_object_new is variadic. */
static inline GtkWidget *time_gtk_box_new_as_label(GtkOrientation orientation, int spacing) {
    return GTK_WIDGET(g_object_new(GTK_TYPE_BOX, "orientation", orientation, "spacing", spacing,
                                   "accessible-role", GTK_ACCESSIBLE_ROLE_LABEL, NULL));
}

static inline void time_gtk_set_accessible_hidden(GtkWidget *widget, gboolean hidden) {
    gtk_accessible_update_state(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_STATE_HIDDEN, hidden, -1);
}

static inline void time_gtk_set_string_property(gpointer object, const char *name, const char *value) {
    g_object_set(object, name, value, NULL);
}

static inline void time_gtk_set_bool_property(gpointer object, const char *name, gboolean value) {
    g_object_set(object, name, value, NULL);
}

static inline gboolean time_gtk_get_bool_property(gpointer object, const char *name) {
    gboolean value = FALSE;
    g_object_get(object, name, &value, NULL);
    return value;
}

static inline gboolean time_gtk_window_is_minimized(GtkWidget *window) {
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (surface == NULL || !GDK_IS_TOPLEVEL(surface)) return FALSE;
    return (gdk_toplevel_get_state(GDK_TOPLEVEL(surface)) & GDK_TOPLEVEL_STATE_MINIMIZED) != 0;
}

static inline GdkSurface *time_gtk_surface(GtkWidget *window) {
    return gtk_native_get_surface(GTK_NATIVE(window));
}
