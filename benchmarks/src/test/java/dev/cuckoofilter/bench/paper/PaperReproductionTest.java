package dev.cuckoofilter.bench.paper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the whole reproduction at {@code --quick} sizes and checks that every file is written and that
 * the paper's size-independent results hold. Throughput is not checked: speed belongs in benchmarks.
 */
class PaperReproductionTest {
  @TempDir
  static Path out;

  @BeforeAll
  static void reproduce() throws IOException {
    PaperReproduction.run(new String[] {"--quick", "--out", out.toString()});
  }

  @Test
  void writesEveryTableFigureAndTheComparison() {
    for (String name : List.of("table2_load_factor.csv", "table3.csv", "fig2_load_factor.csv", "fig3_space_vs_fpr.csv",
        "fig4_space_vs_target_fpr.csv", "fig4_crossovers.csv", "fig5_lookup_vs_positive_fraction.csv",
        "fig6_lookup_vs_occupancy.csv", "fig7_insert_vs_occupancy.csv", "fig8_delete_vs_occupancy.csv",
        "machine.csv", "environment.csv", "comparison.csv", "comparison.md", "fig2_load_factor.png",
        "fig3_space_vs_fpr.png", "fig4_space_vs_target_fpr.png", "fig5_lookup_vs_positive_fraction.png",
        "fig6_lookup_vs_occupancy.png", "fig7_insert_vs_occupancy.png", "fig8_delete_vs_occupancy.png",
        "table2_load_factor.png", "table3.png")) {
      Path file = out.resolve(name);
      assertTrue(Files.isRegularFile(file), name);
      assertTrue(file.toFile().length() > 50, name + " is empty");
    }
  }

  @Test
  void bucketsOfFourFillToOverNinetyPercentFromSixBits() throws IOException {
    for (Map<String, String> row : read("fig2_load_factor.csv")) {
      if (row.get("bucket_size").equals("4") && Integer.parseInt(row.get("fingerprint_bits")) >= 6) {
        assertTrue(number(row, "min_load") > 0.9, row.toString());
      }
    }
  }

  @Test
  void table2MeasuresEveryWidthFromTwoBitsAndSaysWhereTheNarrowOnesComeFrom() throws IOException {
    List<Map<String, String>> rows = read("table2_load_factor.csv");
    for (int f = 2; f <= 16; f++) {
      String bits = String.valueOf(f);
      Map<String, String> row = rows.stream().filter(r -> r.get("fingerprint_bits").equals(bits)).findFirst()
          .orElseThrow(() -> new AssertionError("no row for f = " + bits));
      assertTrue(number(row, "runs") > 1, row.toString());
      assertTrue(number(row, "mean_load_percent") > 0 && number(row, "mean_load_percent") <= 100, row.toString());
      assertEquals(f < 4 ? "MinimalCuckooTable" : "filter-core", row.get("table"), row.toString());
      assertEquals(f < 4, row.get("note").contains("filter-core says"), row.toString());
    }
    assertTrue(rows.stream().filter(r -> r.get("fingerprint_bits").equals("16"))
        .allMatch(r -> number(r, "mean_load_percent") > 90));
    // The article's numbers beside ours, where it has a row.
    assertEquals(17.53, rows.stream().filter(r -> r.get("fingerprint_bits").equals("2")).findFirst().map(r -> number(r,
        "paper_mean_load_percent")).orElseThrow());
  }

  @Test
  void plotOnlyRedrawsTheTablesFromTheirCsvFilesAlone(@TempDir Path elsewhere) throws IOException {
    for (String csv : List.of("table2_load_factor.csv", "table3.csv")) {
      Files.copy(out.resolve(csv), elsewhere.resolve(csv));
    }
    PaperReproduction.run(new String[] {"--plot-only", "load,table3", "--out", elsewhere.toString()});
    for (String png : List.of("table2_load_factor.png", "table3.png")) {
      assertTrue(elsewhere.resolve(png).toFile().length() > 50, png);
    }
    try (var files = Files.list(elsewhere)) {
      assertEquals(4, files.count(), "--plot-only writes the plots and nothing else");
    }
  }

  @Test
  void fillsToFailureGiveTheSameNumbersOnOneThreadAsOnEveryCore(@TempDir Path oneThread) throws Exception {
    // The reproduction above ran its fills on the common pool (every core); inside a one-thread pool the
    // same fills run one after another.
    ForkJoinPool pool = new ForkJoinPool(1);
    try {
      pool.submit(() -> {
        PaperReproduction.run(new String[] {"--quick", "--only", "load,fig4", "--out", oneThread.toString()});
        return null;
      }).get();
    } finally {
      pool.shutdown();
    }
    for (String csv : List.of("fig2_load_factor.csv", "table2_load_factor.csv", "fig4_crossovers.csv",
        "fig4_space_vs_target_fpr.csv")) {
      assertEquals(Files.readString(out.resolve(csv)), Files.readString(oneThread.resolve(csv)), csv);
    }
  }

  @Test
  void semiSortingHalvesTheFalsePositiveRateInTheSameMemory() throws IOException {
    Map<String, Map<String, String>> table3 = byFilter(read("table3.csv"));
    Map<String, String> cf = table3.get("CF");
    Map<String, String> ss = table3.get("ss-CF");
    assertEquals(cf.get("memory_bytes"), ss.get("memory_bytes"));
    assertEquals(cf.get("memory_bytes"), table3.get("BF").get("memory_bytes"));
    double ratio = number(ss, "false_positive_rate") / number(cf, "false_positive_rate");
    assertTrue(ratio > 0.35 && ratio < 0.65, "ss-CF / CF false-positive rate " + ratio);
    // Eq. 5 at 95% load, f = 12: about 0.19%; the textbook Bloom filter at 13 bits/item: about 0.2%.
    assertTrue(number(cf, "false_positive_rate") > 0.001 && number(cf, "false_positive_rate") < 0.003);
    assertTrue(number(table3.get("BF"), "false_positive_rate") < number(table3.get("blk-BF"), "false_positive_rate"));
  }

  @Test
  void bloomFiltersNeedMoreBitsThanCuckooFiltersAtLowRates() throws IOException {
    for (Map<String, String> row : read("fig4_space_vs_target_fpr.csv")) {
      double rate = number(row, "target_fpr");
      if (rate < 0.02) {
        assertTrue(number(row, "bloom_bits") > number(row, "ss_cf_bits"), row.toString());
      }
      if (rate < 0.003) {
        assertTrue(number(row, "bloom_bits") > number(row, "cf_bits"), row.toString());
      }
      assertTrue(number(row, "lower_bound_bits") < number(row, "ss_cf_bits"));
    }
  }

  @Test
  void measuredFalsePositiveRatesFollowEquation5() throws IOException {
    for (Map<String, String> row : read("fig3_space_vs_fpr.csv")) {
      double expected = number(row, "eq5_fpr_at_that_load");
      double samples = number(row, "runs") * number(row, "queries_per_run");
      double sigma = Math.sqrt(expected / samples);
      assertEquals(expected, number(row, "measured_fpr"), 5 * sigma + 1e-6, row.toString());
    }
  }

  private static double number(Map<String, String> row, String column) {
    return Double.parseDouble(row.get(column));
  }

  private static Map<String, Map<String, String>> byFilter(List<Map<String, String>> rows) {
    Map<String, Map<String, String>> m = new HashMap<>();
    for (Map<String, String> r : rows) {
      m.put(r.get("filter"), r);
    }
    return m;
  }

  /** The CSV as maps from column to cell, read as the reproduction reads its own (plotting from CSV). */
  private static List<Map<String, String>> read(String name) {
    return Csv.read(out.resolve(name));
  }
}
