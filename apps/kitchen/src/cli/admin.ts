import { newPassword } from '../auth/tokens.js';
import type { KitchenConfig } from '../config.js';
import { ROLES, type Role } from '../domain/types.js';
import type { AdminService } from '../services/admin-service.js';
import { parseArgs, UsageError, type CliIo } from './io.js';
import { openKitchen } from './open-app.js';

export const ADMIN_USAGE = `admin commands (through the same service layer as the API):
  households                                   list households and their members
  add-user <username> <display name> [--password P]   (a password is generated when omitted)
  create-household <name> <owner username>
  add-member <household id or name> <username> [--role member|owner]   (direct, no invitation)
  reset-password <username> [--password P]    (ends the user's sessions)
With PGlite, stop the server first: one process opens a data directory at a time.`;

async function run(admin: AdminService, command: string, args: string[], io: CliIo): Promise<void> {
  const { positional, options } = parseArgs(args);
  const need = (n: number) => {
    if (positional.length !== n) throw new UsageError(`${command} takes ${n} argument(s)`);
  };
  switch (command) {
    case 'households': {
      need(0);
      for (const h of await admin.listHouseholds()) {
        io.out(`${h.id}  ${h.name}`);
        for (const m of h.members) io.out(`    ${m.role.padEnd(7)} ${m.username} (${m.displayName})`);
      }
      return;
    }
    case 'add-user': {
      need(2);
      const password = options.get('password') ?? newPassword();
      const user = await admin.addUser({ username: positional[0], displayName: positional[1], password });
      io.out(`added ${user.username} (${user.id})`);
      if (!options.has('password')) io.out(`password: ${password}`);
      return;
    }
    case 'create-household': {
      need(2);
      const h = await admin.createHousehold({ name: positional[0] }, positional[1] as string);
      io.out(`created ${h.name} (${h.id}), owner ${positional[1]}`);
      return;
    }
    case 'add-member': {
      need(2);
      const role = options.get('role') ?? 'member';
      if (!(ROLES as readonly string[]).includes(role)) throw new UsageError('--role is member or owner');
      const h = await admin.addMember(positional[0] as string, positional[1] as string, role as Role);
      io.out(`${positional[1]} is now ${role} of ${h.name} (${h.members.length} members)`);
      return;
    }
    case 'reset-password': {
      need(1);
      const password = options.get('password') ?? newPassword();
      await admin.resetPassword(positional[0] as string, password);
      io.out(`password of ${positional[0]} reset; sessions ended`);
      if (!options.has('password')) io.out(`password: ${password}`);
      return;
    }
    default:
      throw new UsageError(`unknown admin command: ${command}`);
  }
}

export async function adminCommand(config: KitchenConfig, args: string[], io: CliIo): Promise<void> {
  const [command, ...rest] = args;
  if (command === undefined || command === 'help' || command === '--help') {
    io.out(ADMIN_USAGE);
    return;
  }
  const kitchen = await openKitchen(config);
  try {
    await run(kitchen.services.admin, command, rest, io);
  } finally {
    await kitchen.db.close();
  }
}
