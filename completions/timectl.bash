# bash completion for timectl(1), the command line of Time.
# Install: copy to /usr/share/bash-completion/completions/timectl
# (or ~/.local/share/bash-completion/completions/timectl), or source it from ~/.bashrc.
# Project names come from `timectl projects --names`, categories from `timectl categories`.

# Sets COMPREPLY to the lines printed by "$@" that start with $cur (case-insensitive), quoted.
_timectl_lines() {
    local line
    local -a found=()
    while IFS= read -r line; do
        [[ -n $line && ${line,,} == "${cur,,}"* ]] && found+=("$(printf '%q' "$line")")
    done < <("$@" 2>/dev/null)
    COMPREPLY=("${found[@]}")
}

_timectl() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    local prev=""
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}
    local commands="start pause resume toggle stop note status report projects project categories sessions add edit delete reminders currency target away undo redo history watch import export sync focus shortcut help"

    # The command and subcommand typed so far; option values are skipped.
    local command="" sub="" i word
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        case $word in
            --color|--category|--name|--session|--format|--project|--from|--to|--start|--end|--at|--duration|--note|--count|--output|-o|--by|--columns|--tag|--round|--round-mode|--rate|--target|--svg|--png|--focus|--break|--long|--every)
                ((i++)); continue ;;
            -*) continue ;;
        esac
        if [[ -z $command ]]; then
            command=$word
        elif [[ -z $sub && ( $command == projects || $command == project || $command == categories || $command == reminders || $command == focus || $command == help ) ]]; then
            sub=$word
        fi
    done

    case $prev in
        --project) _timectl_lines timectl projects --names; return ;;
        --category) _timectl_lines timectl categories; return ;;
        --format)
            if [[ $command == watch ]]; then
                COMPREPLY=($(compgen -W "waybar json plain" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "text waybar json plain" -- "$cur"))
            fi
            return ;;
        --from|--to|--start|--end)
            COMPREPLY=($(compgen -W "today yesterday now" -- "$cur")); return ;;
        --at) COMPREPLY=($(compgen -W "now -5m -10m -15m -30m -1h" -- "$cur")); return ;;
        --by) COMPREPLY=($(compgen -W "project category tag" -- "$cur")); return ;;
        --columns) COMPREPLY=($(compgen -W "day week month" -- "$cur")); return ;;
        --round) COMPREPLY=($(compgen -W "6m 15m 30m 1h" -- "$cur")); return ;;
        --round-mode) COMPREPLY=($(compgen -W "up nearest down" -- "$cur")); return ;;
        --svg|--png) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --color|--name|--session|--duration|--note|--count|--tag|--rate|--target) return ;;
        --focus) COMPREPLY=($(compgen -W "25m 50m" -- "$cur")); return ;;
        --break|--long) COMPREPLY=($(compgen -W "5m 10m 15m 20m" -- "$cur")); return ;;
        --every) COMPREPLY=($(compgen -W "0 2 3 4" -- "$cur")); return ;;
        --output|-o) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac

    if [[ -z $command ]]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi

    local options="--help"
    case $command in
        start)
            options="--category --color --no-create --at --adjust --help"
            [[ $cur != -* ]] && { _timectl_lines timectl projects --names; return; } ;;
        pause|resume|stop) options="--at --help" ;;
        note) options="--session --help" ;;
        status) options="--format --json --help" ;;
        history) options="--count --json --help" ;;
        sync)
            options="--name --json --help"
            [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "enable status disable" -- "$cur")); compopt -o dirnames 2>/dev/null; return; } ;;
        shortcut)
            options="--action --desktop --help"
            case $prev in
                --action) COMPREPLY=($(compgen -W "toggle show-week" -- "$cur")); return ;;
                --desktop) COMPREPLY=($(compgen -W "gnome kde xfce sway i3" -- "$cur")); return ;;
            esac
            [[ $cur != -* && -z $sub ]] && { COMPREPLY=($(compgen -W "set show remove" -- "$cur")); return; } ;;
        report)
            options="--json --csv --timesheet --output -o --svg --png --month --last-month --year --from --to --by --columns --project --tag --round --round-mode --decimal --help -1 -2"
            [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "this last today yesterday this-month last-month this-year" -- "$cur")); return; } ;;
        project)
            case $sub in
                "") [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "set" -- "$cur")); return; } ;;
                set)
                    options="--rate --target --help"
                    [[ $cur != -* ]] && { _timectl_lines timectl projects --names --all; return; } ;;
            esac ;;
        currency) [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "EUR USD GBP CHF none" -- "$cur")); return; } ;;
        target) [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "none 20h 30h 37h30m 40h" -- "$cur")); return; } ;;
        projects)
            case $sub in
                "")
                    options="--json --names --all --help"
                    [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "add edit set archive unarchive" -- "$cur")); return; } ;;
                add) options="--color --category --no-create --help" ;;
                set)
                    options="--rate --target --help"
                    [[ $cur != -* ]] && { _timectl_lines timectl projects --names --all; return; } ;;
                edit|archive|unarchive)
                    [[ $sub == edit ]] && options="--name --color --category --no-create --archive --unarchive --help"
                    [[ $cur != -* ]] && { _timectl_lines timectl projects --names --all; return; } ;;
            esac ;;
        categories)
            case $sub in
                "")
                    options="--json --help"
                    [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "add delete" -- "$cur")); return; } ;;
                delete) [[ $cur != -* ]] && { _timectl_lines timectl categories; return; } ;;
            esac ;;
        sessions) options="--project --from --to --today --week --last-week --overlaps --json --help" ;;
        add)
            options="--duration --start --end --note --help"
            [[ $cur != -* ]] && { _timectl_lines timectl projects --names; return; } ;;
        edit)
            options="--project --start --duration --note --adjust --help"
            [[ $cur != -* && -z $sub ]] && { COMPREPLY=($(compgen -W "current" -- "$cur")); return; } ;;
        reminders)
            [[ $cur != -* && -z $sub ]] && { COMPREPLY=($(compgen -W "untracked off 25 30 45 60 90" -- "$cur")); return; }
            [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "off 10 15 20 30" -- "$cur")); return; } ;;
        away)
            options="--json --help"
            [[ -z $sub && $cur != -* ]] && { COMPREPLY=($(compgen -W "keep discard stop" -- "$cur")); return; } ;;
        watch) options="--format --help" ;;
        focus)
            case $sub in
                "")
                    if [[ $cur != -* ]]; then
                        local -a subs=($(compgen -W "stop skip extend status set" -- "$cur"))
                        _timectl_lines timectl projects --names
                        COMPREPLY=("${subs[@]}" "${COMPREPLY[@]}")
                        return
                    fi ;;
                extend) [[ $cur != -* ]] && { COMPREPLY=($(compgen -W "5m 10m 15m" -- "$cur")); return; } ;;
                set) options="--focus --break --long --every --auto --no-auto --pause-in-breaks --no-pause-in-breaks --help" ;;
                stop|skip|status) ;;
                *) [[ $cur != -* ]] && { _timectl_lines timectl projects --names; return; } ;;
            esac ;;
        import)
            options="--dry-run --json --help"
            if [[ $cur != -* ]]; then
                case $COMP_CWORD in
                    2) COMPREPLY=($(compgen -W "hamster timewarrior watson csv json" -- "$cur")) ;;
                    *) COMPREPLY=($(compgen -f -- "$cur")) ;;
                esac
                return
            fi ;;
        export)
            options="--from --to --project --output -o --help"
            [[ $cur != -* && $COMP_CWORD == 2 ]] && { COMPREPLY=($(compgen -W "csv toggl json ical" -- "$cur")); return; } ;;
        help)
            [[ -z $sub ]] && { COMPREPLY=($(compgen -W "$commands" -- "$cur")); return; } ;;
    esac
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
}

complete -F _timectl timectl
