import Glibc
import TimeAgent

exit(AgentMain.run(Array(CommandLine.arguments.dropFirst())))
