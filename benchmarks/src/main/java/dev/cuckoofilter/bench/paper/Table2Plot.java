package dev.cuckoofilter.bench.paper;

import java.awt.Color;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The ;login: article's Table 2 as a plot: mean load (± one standard deviation) against fingerprint
 * width, one series per table size of {@code table2_load_factor.csv}, the article's means beside them.
 * The article's "variance" column has no unit, so its points carry no error bars. Two panels: every
 * width on a 0-100% axis, and the widths from 6 bits on, where the means differ by tenths of a point.
 * Drawn from the CSV file alone, so {@code --plot-only load} redraws it from an earlier run.
 */
final class Table2Plot {
  static final String CSV = "table2_load_factor.csv";
  static final String PNG = "table2_load_factor.png";
  /** The zoomed panel's first width: where the article says the load approaches the optimum. */
  private static final int ZOOM_FROM_BITS = PaperNumbers.SUFFICIENT_FINGERPRINT_BITS;

  private Table2Plot() {}

  static void draw(Run run) {
    Map<Integer, List<Map<String, String>>> bySize = run.read(CSV).stream()
        .filter(r -> !r.get("mean_load_percent").isEmpty())
        .collect(Collectors.groupingBy(r -> Integer.parseInt(r.get("buckets_log2")), TreeMap::new,
            Collectors.toList()));
    String xTitle = "f: fingerprint size in bits (2, 3: MinimalCuckooTable)";
    Plot all = new Plot(";login: Table 2: load of (2,4) filters at the first failed insert", xTitle,
        "α: load factor (%)").yRange(0, 100).xRange(1.5, 16.5).legendBelow();
    Plot zoom = new Plot("the same from f = " + ZOOM_FROM_BITS + " (error bars: ± one standard deviation)", xTitle,
        "α: load factor (%)").xRange(ZOOM_FROM_BITS - 0.5, 16.5).legendBelow();
    for (Plot p : new Plot[] {all, zoom}) {
      int from = p == all ? 0 : ZOOM_FROM_BITS;
      for (var size : bySize.entrySet()) {
        List<Map<String, String>> rows = size.getValue().stream()
            .filter(r -> Integer.parseInt(r.get("fingerprint_bits")) >= from).toList();
        if (rows.isEmpty()) {
          continue; // a size measured at narrow widths only
        }
        double[] f = column(rows, "fingerprint_bits");
        double[] mean = column(rows, "mean_load_percent");
        int runs = Integer.parseInt(rows.get(0).get("runs"));
        String name = "ours: 2^" + size.getKey() + " buckets, ";
        if (runs > 1) {
          p.lineWithErrors(name + "mean of " + runs + " runs", f, mean, column(rows, "std_percent"));
        } else {
          p.points(name + "one run", f, mean, SeriesMarkers.TRIANGLE_UP, new Color(0, 150, 0));
        }
      }
      int[] bits = PaperNumbers.LOGIN_TABLE2_BITS;
      int[] shown = IntStream.range(0, bits.length).filter(i -> bits[i] >= from).toArray();
      p.points("paper: 2^" + PaperNumbers.LOGIN_TABLE2_BUCKETS_LOG2 + " buckets, mean of 10 runs",
          Arrays.stream(shown).mapToDouble(i -> bits[i]).toArray(),
          Arrays.stream(shown).mapToDouble(i -> PaperNumbers.LOGIN_TABLE2_MEAN_PERCENT[i]).toArray(),
          SeriesMarkers.SQUARE, Color.BLACK);
    }
    run.plot(PNG, all, zoom);
  }

  private static double[] column(List<Map<String, String>> rows, String name) {
    return rows.stream().mapToDouble(r -> Double.parseDouble(r.get(name))).toArray();
  }
}
