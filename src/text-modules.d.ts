/** Wrangler (and the Vitest Workers plugin) load `*.txt` files as Text modules: their content as a string. */
declare module "*.txt" {
  const text: string;
  export default text;
}
