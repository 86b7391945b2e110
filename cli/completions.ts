/**
 * `sausage completions <bash|zsh|fish>`: a completion script for the shell,
 * to source from its startup file (`source <(sausage completions bash)`).
 * It completes the subcommands (and `secret`'s set, list and rm), then
 * folders (worlds) and files.
 *
 * @module
 */

import { parseArgs, UsageError } from "./args.ts";
import { COMMAND_NAMES, SECRET_ACTIONS } from "./command_names.ts";

/** The words after `secret`. */
const SECRET_WORDS = SECRET_ACTIONS.join(" ");

/** Usage of `completions`. */
export const COMPLETIONS_USAGE = "sausage completions <bash|zsh|fish>";

/** The completion script for `shell`. */
function completionScript(shell: string): string {
  const words = COMMAND_NAMES.join(" "); // the CLI's own list of subcommands
  switch (shell) {
    case "bash":
      return `# sausage completions for bash: source <(sausage completions bash)
_sausage() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${words}" -- "$cur"))
  elif [ "\${COMP_WORDS[1]}" = completions ]; then
    COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur"))
  elif [ "\${COMP_WORDS[1]}" = secret ] && [ "$COMP_CWORD" -eq 2 ]; then
    COMPREPLY=($(compgen -W "${SECRET_WORDS}" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _sausage sausage
`;
    case "zsh":
      return `#compdef sausage
# sausage completions for zsh: source <(sausage completions zsh)
_sausage() {
  if (( CURRENT == 2 )); then
    compadd -- ${words}
  elif [[ \${words[2]} == completions ]]; then
    compadd -- bash zsh fish
  elif [[ \${words[2]} == secret ]] && (( CURRENT == 3 )); then
    compadd -- ${SECRET_WORDS}
  else
    _files
  fi
}
compdef _sausage sausage
`;
    case "fish":
      return `# sausage completions for fish: sausage completions fish | source
complete -c sausage -n "__fish_use_subcommand" -f -a "${words}"
complete -c sausage -n "__fish_seen_subcommand_from completions" -f -a "bash zsh fish"
complete -c sausage -n "__fish_seen_subcommand_from secret; and not __fish_seen_subcommand_from ${SECRET_WORDS}" -f -a "${SECRET_WORDS}"
complete -c sausage -l help -d "the usage of the subcommand"
`;
    default:
      throw new UsageError(`completions for bash, zsh or fish, not "${shell}"`);
  }
}

/** Runs the subcommand; resolves with the exit code. */
export function completions(args: string[]): number {
  const { positional } = parseArgs(args, [], []);
  if (positional.length !== 1) throw new UsageError(`usage: ${COMPLETIONS_USAGE}`);
  console.log(completionScript(positional[0]));
  return 0;
}
