// IDs a hostile tenant gives its rules, MCP servers and tasks, to show that
// shell completion treats them as data. A shell that read one as code would
// run a command (each creates a file named PWNED-<letter> in its working
// directory), expand something, or split the ID into several words.

/** IDs completion offers: each must be inserted quoted, reading back as the literal ID. No two start alike. */
export const OFFERED = [
  'a$(touch${IFS}PWNED-a)',
  'b`touch PWNED-b`',
  'c$((0x41))',
  'd$HOME${HOME}',
  'e;touch PWNED-e',
  'f|touch PWNED-f',
  'g&touch PWNED-g&',
  'h>PWNED-h',
  `i'single"double`,
  'j with  spaces',
  'k{x,y}*?[z]',
  'l\\back:colon',
  'm!$(touch PWNED-m)#',
  '=ls',
];

/** IDs completion never offers: a newline, a control, bidi or zero-width character, a look-alike space; one read as an option, or a home directory. */
export const NOT_OFFERED = [
  'n\n$(touch PWNED-n)',
  'o\t$(touch PWNED-o)',
  'p\u001b]0;title\u0007',
  'q\u0085next-line',
  'r\u202e$(touch PWNED-r)',
  's\u2066isolate\u2069',
  't\u200bzero-width',
  'u\ufeffbom',
  'v\u00a0no-break',
  '--base-url=http://127.0.0.1:1',
  '-rf',
  '~root',
  ':4',
];
