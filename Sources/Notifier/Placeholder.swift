// Notifier
