// Loaded with json-server's --middlewares. json-server writes db.json just after it has
// answered a write; on SIGTERM/SIGINT, give that pending write a moment before exiting.
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => setTimeout(() => process.exit(0), 300));
}

module.exports = (req, res, next) => next();
