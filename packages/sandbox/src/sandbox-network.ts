// What `"network": true` means: the sandbox keeps its own network namespace, and the wrapper
// attaches slirp4netns (a user-mode TCP/IP stack, Debian's package) to it, so outbound
// connections leave through ordinary sockets of the host while nothing on the host is reachable:
//   - the host's loopback through the stack's gateway: --disable-host-loopback;
//   - 127.0.0.0/8 and ::1 inside are the sandbox's own loopback (a new namespace), not the host's;
//   - the host's own addresses (192.0.2.2, a docker bridge…): a `prohibit` route for each, added in
//     the sandbox's namespace from outside before the tool runs (nsenter + ip), which the tool,
//     without CAP_NET_ADMIN, cannot remove;
//   - IPv6 is not enabled in the stack, so no IPv6 address of the host is reachable either.
// Without slirp4netns, nsenter or ip the network is refused (required) or left out with a warning
// (auto): never the host's own namespace.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import { findExecutable } from './program-paths.js';

/** The stack's private network: the tool is .100, the gateway .2, the DNS forwarder .3. */
export const SANDBOX_CIDR = '10.113.0.0/24';
export const SANDBOX_DNS = '10.113.0.3';

export interface NetworkHelpers {
  slirp4netns: string;
  nsenter: string;
  ip: string;
}

/** The helpers, or why the isolated network is not available. */
export async function findNetworkHelpers(): Promise<{ helpers?: NetworkHelpers; reason?: string }> {
  const slirp4netns = await findExecutable('slirp4netns');
  const nsenter = await findExecutable('nsenter');
  const ip = await findExecutable('ip');
  const missing = [
    slirp4netns ? undefined : 'slirp4netns (package slirp4netns)',
    nsenter ? undefined : 'nsenter (util-linux)',
    ip ? undefined : 'ip (iproute2)',
  ].filter((name) => name !== undefined);
  if (!(slirp4netns && nsenter && ip)) {
    return { reason: `the isolated network needs ${missing.join(', ')}, not found in PATH` };
  }
  // Not root, slirp4netns opens the TUN device as Ferry's own user (inside the sandbox's user
  // namespace): some hosts leave it root's alone.
  if (process.getuid?.() !== 0) {
    const usable = await access(TUN_DEVICE, constants.R_OK | constants.W_OK).then(
      () => true,
      () => false,
    );
    if (!usable) {
      return {
        reason: `${TUN_DEVICE} is not readable and writable by Ferry's user, so slirp4netns cannot attach (chmod 0666 ${TUN_DEVICE}, as Debian ships it, or run Ferry as root)`,
      };
    }
  }
  return { helpers: { slirp4netns, nsenter, ip } };
}

const TUN_DEVICE = '/dev/net/tun';

/** Every IPv4 address of this host's interfaces but loopback, as /32 routes to refuse. */
export function hostAddresses(): string[] {
  const found = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const address of list ?? []) {
      // 127.0.0.0/8 inside is the sandbox's own loopback (a new namespace): left alone.
      if (address.family === 'IPv4' && !address.internal) found.add(`${address.address}/32`);
    }
  }
  return [...found].sort();
}
