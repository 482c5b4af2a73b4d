export function startEmbeddedPostgres(options: {
  password: string;
  folderPrefix: string;
  flags?: string[];
}): Promise<{ url: string; stop(): Promise<void> }>;
