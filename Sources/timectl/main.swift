import Glibc

signal(SIGPIPE, SIG_IGN)
exit(Timectl.main(Array(CommandLine.arguments.dropFirst())))
