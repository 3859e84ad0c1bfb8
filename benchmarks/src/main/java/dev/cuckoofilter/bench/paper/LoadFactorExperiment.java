package dev.cuckoofilter.bench.paper;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.sizing.Sizing;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Fig. 2 (section 4) and the ;login: article's Table 2: the load factor a (2, b) cuckoo filter reaches
 * when filled with random keys until the first insert fails, for fingerprint widths and table sizes.
 * Fig. 2 plots the minimum over the runs, Table 2 the mean and variance for b = 4 ({@link Table2Plot}).
 * Table 2's 2- and 3-bit rows, which filter-core refuses, come from {@link MinimalCuckooTable}: the same
 * algorithm, checked against filter-core at 4 bits in every run.
 */
final class LoadFactorExperiment implements Experiment {
  private static final int[] BUCKET_SIZES = {4, 8};
  private static final int MIN_BITS = 4; // filter-core's narrowest fingerprint
  private static final int TABLE2_MIN_BITS = 2; // the ;login: table's narrowest
  private static final int MAX_BITS = 16;

  @Override
  public String id() {
    return "load";
  }

  @Override
  public String title() {
    return "Fig. 2 and ;login: Table 2: load factor vs fingerprint width";
  }

  /** Loads reached by the runs of one (b, table size, f). */
  private record Point(int bucketSize, int bucketsLog2, int bits, Summary load) {
    /** What filled the table: filter-core from 4 bits on, {@link MinimalCuckooTable} below. */
    String table() {
      return bits < MIN_BITS ? "MinimalCuckooTable" : "filter-core";
    }
  }

  @Override
  public void run(Run run) {
    Scale scale = run.scale;
    List<Point> points = new ArrayList<>();
    for (int b : BUCKET_SIZES) {
      for (int log2 : scale.loadBucketsLog2()) {
        for (int f = MIN_BITS; f <= MAX_BITS; f++) {
          points.add(measure(b, log2, f, scale.loadTrials()));
        }
        Run.log("b = %d, 2^%d buckets done", b, log2);
      }
    }
    List<Point> narrow = new ArrayList<>();
    for (int f = TABLE2_MIN_BITS; f < MIN_BITS; f++) {
      narrow.add(measure(4, scale.table2BucketsLog2(), f, scale.loadTrials()));
      Run.log("b = 4, f = %d, 2^%d buckets (MinimalCuckooTable): %.4f", f, scale.table2BucketsLog2(),
          narrow.get(narrow.size() - 1).load.mean());
    }
    long sameItems = checkMinimalTable(scale.table2BucketsLog2());
    List<Point> paperSize = new ArrayList<>();
    for (int f : scale.paperSizeWidths()) {
      paperSize.add(measure(4, scale.paperSizeBucketsLog2(), f, 1));
      Run.log("b = 4, f = %d, 2^%d buckets: %.4f", f, scale.paperSizeBucketsLog2(), paperSize.get(paperSize.size() - 1)
          .load.mean());
    }
    writeFigure2(run, points);
    writeTable2(run, points, narrow, paperSize, sameItems);
  }

  @Override
  public boolean plotFromCsv(Run run) {
    Table2Plot.draw(run); // Fig. 2 is drawn from the measurements
    return true;
  }

  private static Point measure(int b, int bucketsLog2, int f, int trials) {
    double[] loads = Run.trials(trials, t -> {
      SplittableRandom keys = new SplittableRandom(keySeed(b, bucketsLog2, f, t));
      if (f < MIN_BITS) {
        MinimalCuckooTable table = new MinimalCuckooTable(b, f, 1L << bucketsLog2, t, CuckooAdapter.MAX_KICKS);
        table.fillToFailure(keys);
        return table.loadFactor();
      }
      CuckooFilter filter = CuckooAdapter.paperFaithful(b, f, false, 1L << bucketsLog2, t);
      CuckooAdapter.fillToFailure(filter, keys);
      return filter.loadFactor();
    });
    return new Point(b, bucketsLog2, f, Summary.of(loads));
  }

  private static long keySeed(int b, int bucketsLog2, int f, int trial) {
    return ((long) b << 48) ^ ((long) bucketsLog2 << 40) ^ ((long) f << 32) ^ trial;
  }

  /**
   * The f = 2, 3 rows are filter-core's numbers only if {@link MinimalCuckooTable} is filter-core's
   * algorithm: filled with the first run's keys at 4 bits, both must store the same number of items
   * (MinimalCuckooTableTest compares whole tables). Returns that number.
   */
  private static long checkMinimalTable(int bucketsLog2) {
    CuckooFilter filter = CuckooAdapter.paperFaithful(4, MIN_BITS, false, 1L << bucketsLog2, 0);
    long core = CuckooAdapter.fillToFailure(filter, new SplittableRandom(keySeed(4, bucketsLog2, MIN_BITS, 0)));
    long minimal = new MinimalCuckooTable(4, MIN_BITS, 1L << bucketsLog2, 0, CuckooAdapter.MAX_KICKS)
        .fillToFailure(new SplittableRandom(keySeed(4, bucketsLog2, MIN_BITS, 0)));
    if (minimal != core) {
      throw new IllegalStateException("MinimalCuckooTable stored " + minimal + " items where filter-core stored "
          + core + " (b = 4, f = " + MIN_BITS + ", 2^" + bucketsLog2 + " buckets): its f < 4 rows would not be"
          + " filter-core's algorithm");
    }
    return core;
  }

  private static void writeFigure2(Run run, List<Point> points) {
    Csv csv = new Csv("bucket_size", "buckets_log2", "fingerprint_bits", "runs", "min_load", "mean_load", "max_load");
    List<Plot> panels = new ArrayList<>();
    for (int b : BUCKET_SIZES) {
      Plot plot = new Plot("Fig. 2(" + (char) ('a' + panels.size()) + "): bucket size b = " + b,
          "f: fingerprint size in bits", "α: load factor (minimum over runs)");
      for (int log2 : run.scale.loadBucketsLog2()) {
        List<Point> series = points.stream().filter(p -> p.bucketSize == b && p.bucketsLog2 == log2).toList();
        double[] x = new double[series.size()];
        double[] y = new double[series.size()];
        for (int i = 0; i < series.size(); i++) {
          Point p = series.get(i);
          x[i] = p.bits;
          y[i] = p.load.min();
          csv.row(b, log2, p.bits, p.load.count(), p.load.min(), p.load.mean(), p.load.max());
        }
        plot.line("m = 2^" + log2, x, y);
      }
      panels.add(plot);
    }
    run.write("fig2_load_factor.csv", csv);
    run.plot("fig2_load_factor.png", panels.toArray(new Plot[0]));
    int largest = run.scale.table2BucketsLog2();
    for (int b : BUCKET_SIZES) {
      Point longest = find(points, b, largest, MAX_BITS);
      run.comparison.add("Fig. 2", "b = " + b + " load, f = " + MAX_BITS + ", minimum of " + longest.load.count()
          + " runs", PaperNumbers.LOAD_BY_BUCKET_SIZE.get(b), longest.load.min(), "ours: 2^" + largest + " buckets");
    }
    Point sufficient = find(points, 4, largest, PaperNumbers.SUFFICIENT_FINGERPRINT_BITS);
    run.comparison.add("Fig. 2", "b = 4 load with f = 6 / load with f = 16 (mean)", 1.0,
        sufficient.load.mean() / find(points, 4, largest, MAX_BITS).load.mean(),
        "paper: 6 bits suffice to approach the optimum (read as 1); ours: 2^" + largest + " buckets");
  }

  private static Point find(List<Point> points, int b, int bucketsLog2, int f) {
    return points.stream().filter(p -> p.bucketSize == b && p.bucketsLog2 == bucketsLog2 && p.bits == f).findFirst()
        .orElseThrow();
  }

  /** Table 2 of ;login: f = 2..16; loads in percent, "gap" to the f = 16 mean as in the article. */
  private static void writeTable2(Run run, List<Point> points, List<Point> narrow, List<Point> paperSize,
      long sameItems) {
    int log2 = run.scale.table2BucketsLog2();
    double optimum = find(points, 4, log2, MAX_BITS).load.mean() * 100;
    Csv csv = new Csv("fingerprint_bits", "buckets_log2", "runs", "table", "mean_load_percent", "gap_to_f16_percent",
        "variance_percent2", "std_percent", "min_load_percent", "max_load_percent", "paper_mean_load_percent",
        "paper_variance", "note");
    List<Point> rows = new ArrayList<>(narrow);
    rows.addAll(points.stream().filter(p -> p.bucketSize == 4 && p.bucketsLog2 == log2).toList());
    rows.addAll(paperSize);
    for (Point p : rows) {
      Summary s = p.load;
      boolean paperSized = p.bucketsLog2 != log2; // no f = 16 run at that size to measure a gap to
      int paper = paperIndex(p.bits);
      String note = p.bits < MIN_BITS ? narrowNote(p.bits, log2, sameItems) : "";
      if (paperSized) {
        note = "the paper's table size, one run" + (note.isEmpty() ? "" : "; " + note);
      }
      csv.row(p.bits, p.bucketsLog2, s.count(), p.table(), s.mean() * 100,
          paperSized ? null : s.mean() * 100 - optimum, s.variance() * 1e4, s.std() * 100, s.min() * 100,
          s.max() * 100, paper < 0 ? null : PaperNumbers.LOGIN_TABLE2_MEAN_PERCENT[paper],
          paper < 0 ? null : PaperNumbers.LOGIN_TABLE2_VARIANCE[paper], note);
    }
    run.write(Table2Plot.CSV, csv);
    Table2Plot.draw(run);
    for (int i = 0; i < PaperNumbers.LOGIN_TABLE2_BITS.length; i++) {
      int f = PaperNumbers.LOGIN_TABLE2_BITS[i];
      Summary ours = (f < MIN_BITS ? find(narrow, 4, log2, f) : find(points, 4, log2, f)).load;
      String table = f < MIN_BITS ? "MinimalCuckooTable (filter-core's algorithm; filter-core refuses f < 4), " : "";
      run.comparison.add(";login: Table 2", "f = " + f + " mean load (%)", PaperNumbers.LOGIN_TABLE2_MEAN_PERCENT[i],
          ours.mean() * 100, "ours: " + table + "2^" + log2 + " buckets, " + ours.count() + " runs; the paper's 2^25");
      run.comparison.add(";login: Table 2", "f = " + f + " variance of the load",
          PaperNumbers.LOGIN_TABLE2_VARIANCE[i], ours.variance() * 1e4,
          "unit not stated in the paper; ours: variance of the load in %² (std " + Csv.significant(ours.std() * 100, 2)
              + " points)");
      for (Point p : paperSize) {
        if (p.bits == f) {
          run.comparison.add(";login: Table 2", "f = " + f + " load (%) at the paper's 2^" + p.bucketsLog2 + " buckets",
              PaperNumbers.LOGIN_TABLE2_MEAN_PERCENT[i], p.load.mean() * 100, "ours: one run");
        }
      }
    }
  }

  /** Index of width {@code f} in the ;login: table, -1 if the article has no row for it. */
  private static int paperIndex(int f) {
    for (int i = 0; i < PaperNumbers.LOGIN_TABLE2_BITS.length; i++) {
      if (PaperNumbers.LOGIN_TABLE2_BITS[i] == f) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Why f = 2, 3 come from MinimalCuckooTable: filter-core's limit (its own message), what such a filter
   * would be worth, and the check that the table is filter-core's algorithm.
   */
  private static String narrowNote(int f, int bucketsLog2, long sameItems) {
    String refusal;
    try {
      CuckooFilter.builder().fingerprintBits(f);
      refusal = "accepted";
    } catch (IllegalArgumentException e) {
      refusal = e.getMessage();
    }
    return "MinimalCuckooTable, filter-core's algorithm: filter-core says \"" + refusal + "\" (even at 50% load a"
        + " (2,4) filter with " + f + "-bit fingerprints answers yes to "
        + Csv.significant(Sizing.falsePositiveRate(4, f, 0.5) * 100, 2) + "% of absent keys, Sizing.falsePositiveRate); at f = "
        + MIN_BITS + " with the first run's keys both stored " + sameItems + " items in 2^" + bucketsLog2 + " buckets";
  }
}
