/** getPet's deprecation, from wrangler.toml vars so the dates change without code. */
export const getPetSchedule = (env: Env) => ({
  deprecatedAt: env.GET_PET_DEPRECATED_AT,
  sunsetAt: env.GET_PET_SUNSET_AT,
  successor: "/v1/pets",
  documentation: "/docs",
});
