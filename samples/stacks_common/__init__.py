"""What the samples share: the data set, the launcher, and building a seeded template."""
