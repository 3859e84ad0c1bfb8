package dev.cuckoofilter.bench.paper;

/** One table or figure of the paper: measures, writes its CSV (and PNG), adds to the comparison. */
interface Experiment {
  /** The name {@code --only} selects it by. */
  String id();

  /** What it reproduces, for the log. */
  String title();

  void run(Run run);
}
