package dev.cuckoofilter.bench.paper;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Table 3 as grouped bars, the paper's value beside ours for every filter of {@code table3.csv}: bits
 * per item, measured false-positive rate and construction rate. Drawn from the CSV file alone, so that
 * {@code --plot-only table3} redraws it from an earlier run without building the filters again.
 */
final class Table3Plot {
  static final String CSV = "table3.csv";
  static final String PNG = "table3.png";

  private Table3Plot() {}

  /** One panel: a column of the CSV and the same quantity in the paper's Table 3. */
  private record Quantity(String title, String yTitle, String column, double scale, String pattern,
      ToDoubleFunction<PaperNumbers.Table3Column> paper) {}

  private static final List<Quantity> QUANTITIES = List.of(
      new Quantity("bits per item", "bits per item", "bits_per_item", 1, "0.00",
          PaperNumbers.Table3Column::bitsPerItem),
      new Quantity("false-positive rate", "measured false-positive rate (%)", "false_positive_rate", 100, "0.000",
          PaperNumbers.Table3Column::falsePositiveRate),
      // Absolute rates of two machines and languages (the write-up compares the ratios to BF's).
      new Quantity("construction (different machines)", "construction rate (million items/s)", "construction_mops",
          1, "0.0", PaperNumbers.Table3Column::constructionMops));

  static void draw(Run run) {
    List<Map<String, String>> rows = run.read(CSV);
    List<String> filters = rows.stream().map(r -> r.get("filter")).toList();
    String size = Run.size(Long.parseLong(rows.get(0).get("memory_bytes")) * 8);
    Bars[] panels = new Bars[QUANTITIES.size()];
    for (int i = 0; i < panels.length; i++) {
      Quantity q = QUANTITIES.get(i);
      List<Double> paper = new ArrayList<>();
      List<Double> ours = new ArrayList<>();
      for (Map<String, String> row : rows) {
        PaperNumbers.Table3Column column = PaperNumbers.TABLE3.get(contender(row.get("filter")));
        paper.add(column == null ? null : q.paper.applyAsDouble(column) * q.scale);
        ours.add(Double.parseDouble(row.get(q.column)) * q.scale);
      }
      panels[i] = new Bars("Table 3: " + q.title, q.yTitle).yPattern(q.pattern)
          .series("paper: 192 MB", filters, paper)
          .series("ours: " + size, filters, ours);
    }
    run.plot(PNG, panels);
  }

  /** The contender of a CSV row's label; null for one the paper did not measure. */
  private static Contender contender(String label) {
    return Arrays.stream(Contender.values()).filter(c -> c.label.equals(label)).findFirst().orElse(null);
  }
}
