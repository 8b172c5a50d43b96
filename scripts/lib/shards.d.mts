export declare const ID_RANGE: number;
export declare function idRangeStatements(shard: number): string[];
export declare function d1Bindings(toml: string): { binding: string; migrationsDir: string | undefined; databaseName: string | undefined; databaseId: string | undefined }[];
export declare function shardOfBinding(binding: string): number | null;
