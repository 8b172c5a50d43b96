export * from "./accounts";
export * from "./suppliers";
export * from "./orders";
export * from "./catalogue";
export * from "./routing";
export * from "./forwarding";
export * from "./events";
export * from "./console";
