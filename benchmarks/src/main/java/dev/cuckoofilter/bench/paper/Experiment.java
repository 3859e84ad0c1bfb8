package dev.cuckoofilter.bench.paper;

/** One table or figure of the paper: measures, writes its CSV (and PNG), adds to the comparison. */
interface Experiment {
  /** The name {@code --only} selects it by. */
  String id();

  /** What it reproduces, for the log. */
  String title();

  void run(Run run);

  /**
   * Draws the plots of this experiment from the CSV files in the run's output directory, measuring
   * nothing: how {@code run} draws them too, so {@code --plot-only} redraws exactly what a run would from
   * a run's files. False if its plots are drawn from the measurements instead.
   */
  default boolean plotFromCsv(Run run) {
    return false;
  }
}
