# fish completion for timectl(1), the command line of Time.
# Install: copy to ~/.config/fish/completions/timectl.fish (or /usr/share/fish/vendor_completions.d/).
# Project names come from `timectl projects --names`, categories from `timectl categories`.

set -l commands start pause resume toggle stop note status report projects project categories sessions add edit delete reminders currency target away undo redo history watch import export sync focus shortcut help

function __timectl_projects
    timectl projects --names 2>/dev/null
end

function __timectl_all_projects
    timectl projects --names --all 2>/dev/null
end

function __timectl_categories
    timectl categories 2>/dev/null
end

complete -c timectl -f
complete -c timectl -s h -l help -d 'Show help'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -s V -l version -d 'Show the version'

complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a start -d 'Start tracking a project'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a pause -d 'Pause the running session'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a resume -d 'Resume the paused session'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a toggle -d 'Pause, resume, or start the last project'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a stop -d 'Stop the open session'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a note -d 'Add to the open session\'s note'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a status -d 'Show the timer'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a report -d 'Show a report of a week, day, month, year or span'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a project -d 'Set a project\'s rate and weekly target'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a currency -d 'Show or set the currency of amounts'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a target -d 'Show or set the weekly target'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a projects -d 'List, add, edit, archive projects'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a categories -d 'List, add, delete categories'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a sessions -d 'List sessions'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a add -d 'Add a past session by hand'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a edit -d 'Change a session (current: the open one)'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a delete -d 'Delete a completed session'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a reminders -d 'Show or set the reminder interval'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a away -d 'List away time, or keep, discard or stop it'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a undo -d 'Undo the newest change'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a redo -d 'Redo what was undone last'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a history -d 'List the newest changes'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a sync -d 'Sync across devices through a shared folder'
complete -c timectl -n "__fish_seen_subcommand_from sync" -a 'enable status disable'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a shortcut -d 'Set, show or remove the keyboard shortcut'
complete -c timectl -n "__fish_seen_subcommand_from shortcut" -a 'set show remove'
complete -c timectl -n "__fish_seen_subcommand_from shortcut" -l action -x -a 'toggle show-week' -d 'What the key does'
complete -c timectl -n "__fish_seen_subcommand_from shortcut" -l desktop -x -a 'gnome kde xfce sway i3' -d 'The desktop'
complete -c timectl -n "__fish_seen_subcommand_from sync" -l name -x -d 'This device name'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a watch -d 'Print the timer on every change'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a import -d 'Import from Hamster, Timewarrior, Watson, csv or json'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a export -d 'Export as csv, toggl, json or ical'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a help -d 'Show help for a command'

# Project names.
complete -c timectl -n "__fish_seen_subcommand_from start add" -a '(__timectl_projects)'
complete -c timectl -n "__fish_seen_subcommand_from sessions edit" -l project -x -a '(__timectl_projects)' -d 'Project'

# start creates the project when missing
complete -c timectl -n "__fish_seen_subcommand_from start" -l category -x -a '(__timectl_categories)' -d 'Category of a new project'
complete -c timectl -n "__fish_seen_subcommand_from start" -l color -x -d 'Color #rrggbb of a new project'
complete -c timectl -n "__fish_seen_subcommand_from start" -l no-create -d 'Refuse instead of creating'

# Times given late: --at on the timer, --adjust to shorten what a start would overlap
complete -c timectl -n "__fish_seen_subcommand_from start pause resume stop" -l at -x -a 'now -5m -10m -15m -30m -1h' -d 'When it really happened (9:15, 10 minutes ago, -10m)'
complete -c timectl -n "__fish_seen_subcommand_from start edit; and not __fish_seen_subcommand_from projects" -l adjust -d 'Shorten the session the new start overlaps'

# note, status, report, reminders, watch
complete -c timectl -n "__fish_seen_subcommand_from note" -l session -x -d 'Replace the note of this session'
complete -c timectl -n "__fish_seen_subcommand_from status" -l format -x -a 'text waybar json plain' -d 'Output format'
complete -c timectl -n "__fish_seen_subcommand_from status report projects categories sessions history" -l json -d 'Print JSON'
complete -c timectl -n "__fish_seen_subcommand_from report" -a 'this last -1 -2 today yesterday this-month last-month this-year' -d 'Range'
complete -c timectl -n "__fish_seen_subcommand_from report" -l svg -r -F -d 'Write the chart as SVG'
complete -c timectl -n "__fish_seen_subcommand_from report" -l png -r -F -d 'Write the chart as PNG'
complete -c timectl -n "__fish_seen_subcommand_from report" -l csv -d 'One CSV row per group and column'
complete -c timectl -n "__fish_seen_subcommand_from report" -l timesheet -d 'One CSV row per session and day'
complete -c timectl -n "__fish_seen_subcommand_from report" -s o -l output -r -F -d 'Write the report to this file'
complete -c timectl -n "__fish_seen_subcommand_from report" -l month -d 'This month'
complete -c timectl -n "__fish_seen_subcommand_from report" -l last-month -d 'Last month'
complete -c timectl -n "__fish_seen_subcommand_from report" -l year -d 'This year'
complete -c timectl -n "__fish_seen_subcommand_from report" -l from -x -a 'today yesterday' -d 'First day'
complete -c timectl -n "__fish_seen_subcommand_from report" -l to -x -a 'today yesterday' -d 'Last day'
complete -c timectl -n "__fish_seen_subcommand_from report" -l by -x -a 'project category tag' -d 'Group by'
complete -c timectl -n "__fish_seen_subcommand_from report" -l columns -x -a 'day week month' -d 'Columns'
complete -c timectl -n "__fish_seen_subcommand_from report" -l project -x -a '(__timectl_all_projects)' -d 'Only this project'
complete -c timectl -n "__fish_seen_subcommand_from report" -l tag -x -d 'Only this #tag'
complete -c timectl -n "__fish_seen_subcommand_from report" -l round -x -a '6m 15m 30m 1h' -d 'Round each session per column'
complete -c timectl -n "__fish_seen_subcommand_from report" -l round-mode -x -a 'up nearest down' -d 'How to round'
complete -c timectl -n "__fish_seen_subcommand_from report" -l decimal -d 'Hours as decimals'
complete -c timectl -n "__fish_seen_subcommand_from project; and not __fish_seen_subcommand_from set" -a 'set' -d 'Set the rate and weekly target'
complete -c timectl -n "__fish_seen_subcommand_from project projects; and __fish_seen_subcommand_from set" -a '(__timectl_all_projects)'
complete -c timectl -n "__fish_seen_subcommand_from project projects; and __fish_seen_subcommand_from set" -l rate -x -d 'Hourly rate (85.50; none)'
complete -c timectl -n "__fish_seen_subcommand_from project projects; and __fish_seen_subcommand_from set" -l target -x -d 'Hours per week (20h; none)'
complete -c timectl -n "__fish_seen_subcommand_from currency" -a 'EUR USD GBP CHF none' -d 'ISO 4217 code'
complete -c timectl -n "__fish_seen_subcommand_from target" -a 'none 20h 30h 37h30m 40h' -d 'Per week'
complete -c timectl -n "__fish_seen_subcommand_from history" -l count -x -d 'How many'
complete -c timectl -n "__fish_seen_subcommand_from reminders; and not __fish_seen_subcommand_from untracked" -a 'untracked' -d 'The not-tracking reminder'
complete -c timectl -n "__fish_seen_subcommand_from reminders; and not __fish_seen_subcommand_from untracked" -a 'off 25 30 45 60 90' -d 'Minutes'
complete -c timectl -n "__fish_seen_subcommand_from reminders; and __fish_seen_subcommand_from untracked" -a 'off 10 15 20 30' -d 'Minutes at the desk'
complete -c timectl -n "__fish_seen_subcommand_from away; and not __fish_seen_subcommand_from keep discard stop" -a 'keep discard stop' -d 'Answer'
complete -c timectl -n "__fish_seen_subcommand_from away" -l json -d 'Print JSON'
complete -c timectl -n "not __fish_seen_subcommand_from $commands" -a focus -d 'Start a focus phase, or stop, skip, extend or set the focus timer'
complete -c timectl -n "__fish_seen_subcommand_from focus; and not __fish_seen_subcommand_from stop skip extend status set" -a 'stop skip extend status set' -d 'Focus timer'
complete -c timectl -n "__fish_seen_subcommand_from focus; and not __fish_seen_subcommand_from stop skip extend status set" -a '(__timectl_projects)'
complete -c timectl -n "__fish_seen_subcommand_from focus; and __fish_seen_subcommand_from extend" -a '5m 10m 15m' -d 'Minutes'
complete -c timectl -n "__fish_seen_subcommand_from focus; and __fish_seen_subcommand_from set" -l focus -x -d 'A focus phase (25m)'
complete -c timectl -n "__fish_seen_subcommand_from focus; and __fish_seen_subcommand_from set" -l break -x -d 'A break (5m)'
complete -c timectl -n "__fish_seen_subcommand_from focus; and __fish_seen_subcommand_from set" -l long -x -d 'A long break (15m)'
complete -c timectl -n "__fish_seen_subcommand_from focus; and __fish_seen_subcommand_from set" -l every -x -d 'Focus phases before a long break (0: none)'
complete -c timectl -n "__fish_seen_subcommand_from focus; and __fish_seen_subcommand_from set" -l auto -d 'Start the next phase by itself'
complete -c timectl -n "__fish_seen_subcommand_from focus; and __fish_seen_subcommand_from set" -l no-auto -d 'Wait for you to start the next phase'
complete -c timectl -n "__fish_seen_subcommand_from focus; and __fish_seen_subcommand_from set" -l pause-in-breaks -d 'Pause the session in breaks'
complete -c timectl -n "__fish_seen_subcommand_from focus; and __fish_seen_subcommand_from set" -l no-pause-in-breaks -d 'Keep the session running in breaks'
complete -c timectl -n "__fish_seen_subcommand_from watch" -l format -x -a 'waybar json plain' -d 'Output format'
complete -c timectl -n "__fish_seen_subcommand_from import; and not __fish_seen_subcommand_from hamster timewarrior watson csv json" -x -a 'hamster timewarrior watson csv json' -d 'Format'
complete -c timectl -n "__fish_seen_subcommand_from import" -l dry-run -d 'Only show what would be added'
complete -c timectl -n "__fish_seen_subcommand_from export; and not __fish_seen_subcommand_from csv toggl json ical" -x -a 'csv toggl json ical' -d 'Format'
complete -c timectl -n "__fish_seen_subcommand_from export" -s o -l output -r -d 'Write to this file'

# sessions, add, edit
complete -c timectl -n "__fish_seen_subcommand_from sessions" -l from -x -a 'today yesterday' -d 'From (date/time)'
complete -c timectl -n "__fish_seen_subcommand_from sessions" -l to -x -a 'today yesterday' -d 'Up to (date/time)'
complete -c timectl -n "__fish_seen_subcommand_from sessions" -l today -d 'Today'
complete -c timectl -n "__fish_seen_subcommand_from sessions" -l week -d 'This week'
complete -c timectl -n "__fish_seen_subcommand_from sessions" -l last-week -d 'Last week'
complete -c timectl -n "__fish_seen_subcommand_from sessions" -l overlaps -d 'Only sessions that overlap another'
complete -c timectl -n "__fish_seen_subcommand_from edit; and not __fish_seen_subcommand_from projects current" -a current -d 'The open session'
complete -c timectl -n "__fish_seen_subcommand_from add; and not __fish_seen_subcommand_from projects categories" -l end -x -a 'today now' -d 'End (date/time; default now)'
complete -c timectl -n "__fish_seen_subcommand_from add edit" -l start -x -a 'today yesterday now' -d 'Start (date/time)'
complete -c timectl -n "__fish_seen_subcommand_from add edit" -l duration -x -d 'Duration (1h30m, 1:30, 90m)'
complete -c timectl -n "__fish_seen_subcommand_from add edit" -l note -x -d 'Note'

# projects
set -l project_subs add edit set archive unarchive
complete -c timectl -n "__fish_seen_subcommand_from projects; and not __fish_seen_subcommand_from $project_subs" -a 'add' -d 'Create a project'
complete -c timectl -n "__fish_seen_subcommand_from projects; and not __fish_seen_subcommand_from $project_subs" -a 'edit' -d 'Change a project'
complete -c timectl -n "__fish_seen_subcommand_from projects; and not __fish_seen_subcommand_from $project_subs" -a 'set' -d 'Set its rate and weekly target'
complete -c timectl -n "__fish_seen_subcommand_from projects; and not __fish_seen_subcommand_from $project_subs" -a 'archive' -d 'Archive a project'
complete -c timectl -n "__fish_seen_subcommand_from projects; and not __fish_seen_subcommand_from $project_subs" -a 'unarchive' -d 'Bring a project back'
complete -c timectl -n "__fish_seen_subcommand_from projects; and not __fish_seen_subcommand_from $project_subs" -l names -d 'Names only'
complete -c timectl -n "__fish_seen_subcommand_from projects; and not __fish_seen_subcommand_from $project_subs" -l all -d 'Include archived projects'
complete -c timectl -n "__fish_seen_subcommand_from projects; and __fish_seen_subcommand_from edit archive unarchive" -a '(__timectl_all_projects)'
complete -c timectl -n "__fish_seen_subcommand_from projects; and __fish_seen_subcommand_from add edit" -l color -x -d 'Color #rrggbb'
complete -c timectl -n "__fish_seen_subcommand_from projects; and __fish_seen_subcommand_from add edit" -l category -x -a '(__timectl_categories)' -d 'Category'
complete -c timectl -n "__fish_seen_subcommand_from projects; and __fish_seen_subcommand_from add edit" -l no-create -d 'Refuse a missing category'
complete -c timectl -n "__fish_seen_subcommand_from projects; and __fish_seen_subcommand_from edit" -l name -x -d 'New name'
complete -c timectl -n "__fish_seen_subcommand_from projects; and __fish_seen_subcommand_from edit" -l archive -d 'Archive it'
complete -c timectl -n "__fish_seen_subcommand_from projects; and __fish_seen_subcommand_from edit" -l unarchive -d 'Unarchive it'

# categories
complete -c timectl -n "__fish_seen_subcommand_from categories; and not __fish_seen_subcommand_from add delete" -a 'add' -d 'Create a category'
complete -c timectl -n "__fish_seen_subcommand_from categories; and not __fish_seen_subcommand_from add delete" -a 'delete' -d 'Delete a category'
complete -c timectl -n "__fish_seen_subcommand_from categories; and __fish_seen_subcommand_from delete" -a '(__timectl_categories)'

# help
complete -c timectl -n "__fish_seen_subcommand_from help" -a "$commands"
