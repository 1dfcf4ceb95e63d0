// The CLI loads a command's module only when it is asked for (src/node/cli.ts): each name of the
// table must load the command of that name, or `climate-query <name>` would run another one.
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/node/cli.ts';

describe('the CLI command table', () => {
  it('loads, for each name, the command of that name, whose usage names it', async () => {
    expect(COMMANDS.size).toBe(10);
    for (const [name, load] of COMMANDS) {
      const command = await load();
      expect(command.name).toBe(name);
      expect(command.usage).toContain(`climate-query ${name}`);
      expect(typeof command.run).toBe('function');
    }
  });
});
