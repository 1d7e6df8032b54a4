/** A method the PostgreSQL store does not have yet: refuses clearly instead of answering wrong. */
export const notYet =
  (method: string) =>
  (..._args: unknown[]): never => {
    throw new Error(`${method} is not implemented on PostgreSQL yet`);
  };
