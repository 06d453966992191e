export declare function findPostgres(): { bin: string; skip?: undefined } | { skip: string; bin?: undefined };
export interface Cluster {
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  destroy(): Promise<void>;
}
export declare function startCluster(options?: { port?: number; maxConnections?: number }): Promise<Cluster>;
