package dev.cuckoofilter.bench.paper;

import java.nio.file.Path;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntToDoubleFunction;
import java.util.stream.IntStream;

/** What the experiments of one run share: sizes, output directory, the comparison, the Table 3 filters. */
final class Run {
  final Scale scale;
  final Comparison comparison = new Comparison();
  private final Path out;
  private SameMemoryFilters sameMemory;

  Run(Scale scale, Path out) {
    this.scale = scale;
    this.out = out;
  }

  void write(String fileName, Csv csv) {
    csv.write(out.resolve(fileName));
  }

  void plot(String fileName, Plot... panels) {
    Plot.save(out.resolve(fileName), panels);
  }

  void plot(String fileName, Bars... panels) {
    Bars.save(out.resolve(fileName), panels);
  }

  /** A CSV file of the output directory, written by this run or an earlier one ({@code --plot-only}). */
  List<Map<String, String>> read(String fileName) {
    return Csv.read(out.resolve(fileName));
  }

  /** Table 3's filters, filled to capacity, built (and timed) on first use and shared with Fig. 5. */
  SameMemoryFilters sameMemory() {
    if (sameMemory == null) {
      sameMemory = SameMemoryFilters.build(scale);
    }
    return sameMemory;
  }

  /**
   * Runs the independent, seeded trials of an untimed experiment (fills to failure) on every core. The
   * results come back in trial order, so a run's numbers do not depend on the thread count; timed
   * experiments never use this, they measure one thing at a time.
   */
  static double[] trials(int count, IntToDoubleFunction trial) {
    return IntStream.range(0, count).parallel().mapToDouble(trial).toArray();
  }

  /** A filter size for labels: "48 MiB", "384 KiB". */
  static String size(long bits) {
    long bytes = bits / 8;
    return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
  }

  static void log(String format, Object... args) {
    String time = LocalTime.now().truncatedTo(ChronoUnit.SECONDS).toString();
    System.out.println(time + "  " + String.format(Locale.ROOT, format, args));
  }
}
