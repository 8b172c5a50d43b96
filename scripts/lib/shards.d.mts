export declare const ID_RANGE: number;
export declare const MAX_SHARDS: number;
export declare const FIRST_SPARE_BLOCK: number;
export declare const LAST_BLOCK: number;
export declare const MAX_ACCOUNT_ID: number;
export declare function shardDeclarationProblem(bindings: string[]): string | null;
export declare function idRangeStatements(shard: number): string[];
export declare function d1Bindings(toml: string): { binding: string; migrationsDir: string | undefined; databaseName: string | undefined; databaseId: string | undefined }[];
export declare function shardOfBinding(binding: string): number | null;
