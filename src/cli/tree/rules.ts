import type { Command } from 'commander';
import { lazyAction, positiveInt } from './util.js';

/** Adds the subcommands of `agctl rules` (the group itself is declared in program.ts). */
export function register(rules: Command): void {
  rules
    .command('list')
    .description('List the rules of an app in evaluation order (priority, then ID)')
    .argument('<app-id>', 'app ID')
    .option('--limit <n>', 'stop after this many rules', positiveInt('--limit'))
    .option('--page-size <n>', 'rules per request, 1 to 250', positiveInt('--page-size', 250))
    .addHelpText('after', '\nExamples:\n  $ agctl rules list crm-app\n  $ agctl rules list crm-app -o json | jq \'.[].id\'')
    .action(lazyAction(() => import('../commands/rules/list.js'), ([appId], o) => ({ appId: appId as string, limit: o.limit as number | undefined, pageSize: o.pageSize as number | undefined })));
  rules
    .command('delete')
    .description('Delete one or more rules of an app')
    .argument('<app-id>', 'app ID')
    .argument('<rule-id...>', 'rule IDs')
    .option('-y, --yes', 'do not ask for confirmation (required when not on a terminal)')
    .addHelpText('after', '\nExamples:\n  $ agctl rules delete crm-app ecr-004\n  $ agctl rules delete crm-app ecr-004 ecr-005 --yes')
    .action(lazyAction(() => import('../commands/rules/delete.js'), ([appId, ids], o) => ({ appId: appId as string, ruleIds: ids as string[], yes: Boolean(o.yes) })));
}
