// Its own entry point, like status_page.v1: account.v1 is a package of its own.
export * from "./gen/account/v1/account_pb";
export * from "./gen/account/v1/member_pb";
