package dev.cuckoofilter.bench.paper;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.sizing.Sizing;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.style.Styler;

/**
 * Fig. 3 (section 5.1): bits per item of full filters against their measured false-positive rate, for
 * bucket sizes 2, 4 and 8 and fingerprint widths covering rates from about 1% to 0.001%. Each filter is
 * filled until its first failed insert; points are means over runs.
 */
final class SpaceVsFprExperiment implements Experiment {
  private static final int[] BUCKET_SIZES = {2, 4, 8};
  /** Widths from {@code FIRST_BITS + log2(b)}: false-positive rates of about 2b / 2^f, 1.6% down to 0.0015%. */
  private static final int FIRST_BITS = 7;
  private static final int WIDTHS = 11;

  @Override
  public String id() {
    return "fig3";
  }

  @Override
  public String title() {
    return "Fig. 3: bits per item vs measured false-positive rate, b = 2, 4, 8";
  }

  /** Means over the runs of one (b, f). */
  private record Point(int bits, double bitsPerItem, double load, double measuredFpr, double equation5Fpr) {}

  @Override
  public void run(Run run) {
    Scale scale = run.scale;
    Csv csv = new Csv("bucket_size", "fingerprint_bits", "runs", "bits_per_item", "load", "measured_fpr",
        "eq5_fpr_at_that_load", "queries_per_run");
    Plot plot = new Plot("Fig. 3: space vs measured false-positive rate", "ε: measured false positive rate",
        "bits per item to achieve ε").logX().legend(Styler.LegendPosition.InsideNE);
    List<List<Point>> curves = new ArrayList<>();
    for (int b : BUCKET_SIZES) {
      List<Point> curve = new ArrayList<>();
      int first = FIRST_BITS + Integer.numberOfTrailingZeros(b);
      for (int f = first; f < first + WIDTHS; f++) {
        Point p = measure(b, f, scale);
        curve.add(p);
        csv.row(b, f, scale.spaceTrials(), p.bitsPerItem, p.load, p.measuredFpr, p.equation5Fpr, scale.spaceQueries());
      }
      Run.log("b = %d done", b);
      // A rate too small to see in the queries made has no place on a log scale.
      List<Point> seen = curve.stream().filter(p -> p.measuredFpr > 0).toList();
      plot.line("b = " + b, column(seen, Point::measuredFpr), column(seen, Point::bitsPerItem));
      curves.add(seen);
    }
    run.write("fig3_space_vs_fpr.csv", csv);
    run.plot("fig3_space_vs_fpr.png", plot);
    compare(run.comparison, curves.get(0), curves.get(1));
  }

  private static Point measure(int b, int f, Scale scale) {
    double bitsPerItem = 0;
    double load = 0;
    double fpr = 0;
    int trials = scale.spaceTrials();
    for (int t = 0; t < trials; t++) {
      CuckooFilter filter = CuckooAdapter.paperFaithful(b, f, false, (1L << scale.spaceSlotsLog2()) / b, t);
      CuckooAdapter.fillToFailure(filter, new SplittableRandom(((long) b << 40) ^ ((long) f << 32) ^ t));
      SplittableRandom absent = new SplittableRandom(~(((long) b << 40) ^ ((long) f << 32) ^ t));
      long hits = 0;
      for (int q = 0; q < scale.spaceQueries(); q++) {
        hits += filter.mightContain(absent.nextLong()) ? 1 : 0;
      }
      bitsPerItem += filter.bitsPerItem() / trials;
      load += filter.loadFactor() / trials;
      fpr += (double) hits / scale.spaceQueries() / trials;
    }
    return new Point(f, bitsPerItem, load, fpr, Sizing.falsePositiveRate(b, f, load));
  }

  /**
   * Section 5.1: b = 2 needs fewer bits than b = 4 above a false-positive rate of about 0.002. The
   * curves are compared on a log scale of the rate, over the range both cover.
   */
  private static void compare(Comparison comparison, List<Point> b2, List<Point> b4) {
    double[] logRate2 = reversed(column(b2, p -> Math.log10(p.measuredFpr)));
    double[] bits2 = reversed(column(b2, Point::bitsPerItem));
    double[] logRate4 = reversed(column(b4, p -> Math.log10(p.measuredFpr)));
    double[] bits4 = reversed(column(b4, Point::bitsPerItem));
    double from = Math.max(logRate2[0], logRate4[0]);
    double to = Math.min(logRate2[logRate2.length - 1], logRate4[logRate4.length - 1]);
    int n = 200;
    double[] grid = new double[n];
    double[] on2 = new double[n];
    double[] on4 = new double[n];
    for (int i = 0; i < n; i++) {
      grid[i] = from + (to - from) * i / (n - 1);
      on2[i] = Curve.at(logRate2, bits2, grid[i]);
      on4[i] = Curve.at(logRate4, bits4, grid[i]);
    }
    comparison.add("Fig. 3", "false-positive rate above which b = 2 needs fewer bits than b = 4",
        PaperNumbers.B2_B4_CROSSOVER_FPR, Math.pow(10, Curve.firstReach(grid, on4, on2)),
        "interpolated on log(rate); empty = no crossover in the measured range");
    Point widest = b2.get(b2.size() - 1); // longest fingerprints: load no longer limited by f
    comparison.add("Section 5.1", "b = 2 load at first failure, f = " + widest.bits + " (mean)",
        PaperNumbers.LOAD_BY_BUCKET_SIZE.get(2), widest.load, "");
  }

  private static double[] column(List<Point> points, ToDoubleFunction<Point> value) {
    return points.stream().mapToDouble(value).toArray();
  }

  private static double[] reversed(double[] a) {
    double[] r = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      r[i] = a[a.length - 1 - i];
    }
    return r;
  }
}
