import Glibc
import TimeWindow

// Time's window; everything is in TimeWindow.
exit(WindowApp.main(CommandLine.arguments))
