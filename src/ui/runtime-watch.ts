/**
 * Keeps open Runtime pages current with the runtime service. A subscription's counts change
 * with every event it is sent, and nothing on disk says so, so the service is asked for its
 * listing every `intervalMs` — only while some page shows the Runtime view — and the pages are
 * told when what they would show differs from the last answer. One request a second to a service
 * that answers from memory; none at all when no page looks.
 */
import type { Logger } from '../core/index.js';
import { type ServiceStatus, serviceStatus, statusFingerprint } from './runtime-service.js';

/** How often the service is asked while a Runtime page is open. */
export const RUNTIME_POLL_MS = 1000;

export interface ServiceWatchOptions {
  url: string;
  token: string | undefined;
  intervalMs?: number;
  /** Called when the listing differs from the one before (or a page just opened). */
  onChange: (status: ServiceStatus) => void;
  log: Logger;
}

export class ServiceWatch {
  private timer: NodeJS.Timeout | undefined;
  private active = false;
  private polling = false;
  private last: string | undefined;
  private latest: { status: ServiceStatus; at: number } | undefined;
  private readonly intervalMs: number;

  constructor(private readonly options: ServiceWatchOptions) {
    this.intervalMs = options.intervalMs ?? RUNTIME_POLL_MS;
  }

  /**
   * A page showing the view connected: poll (now, and on), and tell the pages after the first
   * answer whatever it is — the new page was rendered before it connected and may have missed a
   * change in between.
   */
  wake(): void {
    this.last = undefined;
    this.active = true;
    if (!this.polling) {
      clearTimeout(this.timer);
      void this.poll();
    }
  }

  /**
   * The last answer while it is at most one interval old: what the pages were just told, so a
   * page fetching its section after being told shows exactly that, and ten open pages cost the
   * service one request a second, not eleven.
   */
  recent(): ServiceStatus | undefined {
    return this.latest && Date.now() - this.latest.at <= this.intervalMs ? this.latest.status : undefined;
  }

  /** No page shows the view any more: stop asking. */
  sleep(): void {
    this.active = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      const status = await serviceStatus(this.options.url, this.options.token);
      this.latest = { status, at: Date.now() };
      const print = statusFingerprint(status);
      if (this.active && print !== this.last) {
        this.last = print;
        this.options.onChange(status);
      }
    } catch (error) {
      this.options.log.debug(`ui: polling the runtime service failed: ${(error as Error).message}`);
    } finally {
      this.polling = false;
    }
    if (!this.active) return;
    this.timer = setTimeout(() => void this.poll(), this.intervalMs);
    this.timer.unref();
  }
}
