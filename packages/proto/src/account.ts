// Its own entry point: account.v1 (people and API keys) is a package of its own.
export * from "./gen/account/v1/account_pb";
export * from "./gen/account/v1/api_key_pb";
export * from "./gen/account/v1/member_pb";
export * from "./gen/account/v1/sso_pb";
export * from "./gen/account/v1/audit_log_pb";
