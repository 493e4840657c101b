// Placeholder until the catalog lands; replace me.
