import type { Server } from 'node:http';
import { UserError } from '../core/index.js';

/**
 * Starts `server` listening and resolves with the port it got (`port` 0: any free one). A port
 * another process holds is the caller's to fix (PORT_IN_USE, exit 2), not a crash.
 */
export async function listen(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new UserError(`port ${port} on ${host} is already in use`, {
              code: 'PORT_IN_USE',
              hint: 'stop the other server or pass --port with a free port (0: any free port)',
            })
          : error,
      );
    });
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}
