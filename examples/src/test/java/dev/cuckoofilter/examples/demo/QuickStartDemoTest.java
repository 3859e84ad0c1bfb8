package dev.cuckoofilter.examples.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The quick-start demo at its small size, in this JVM: its checks pass, and a rerun gives the same numbers. */
class QuickStartDemoTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = QuickStartDemo.session().getOrCreate();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void theSmallDemoPassesItsChecksAndARerunReusesTheDataWithTheSameResults(@TempDir Path dir) throws Exception {
    QuickStartDemo.Options options = QuickStartDemo.Options.parse("--small", "--data", dir.toString());
    Run first = run(options);
    assertTrue(first.report.passed(), first.output);
    assertTrue(first.output.contains("generated (later runs of this size reuse them)"), first.output);
    assertEquals(6, first.report.checks().size(), first.output);

    List<DemoReport.Phase> phases = first.report.phases();
    assertEquals(List.of(1L, 2L), phases.stream().map(DemoReport.Phase::version).toList());
    for (DemoReport.Phase p : phases) {
      assertEquals(200_000, p.ordersScanned(), first.output);
      // The filter drops most orders: the dimension is about 5% of the customers.
      assertTrue(p.matchingOrders() > 0 && p.ordersKept() < p.ordersScanned() / 5, first.output);
      // Nearly every customer orders something; the dimension is about 5% of them.
      assertTrue(p.absentKeys() > 10_000 && p.absentKeys() < 20_000, first.output);
      assertTrue(p.fppWithinExpectation(), first.output);
    }
    assertTrue(first.output.contains("All checks passed."), first.output);

    Run second = run(options);
    assertTrue(second.output.contains("reused from an earlier run"), second.output);
    assertTrue(second.report.passed(), second.output);
    for (int i = 0; i < 2; i++) {
      DemoReport.Phase a = first.report.phases().get(i);
      DemoReport.Phase b = second.report.phases().get(i);
      // Same data, same filters: everything but the times is the same.
      assertEquals(List.of(a.dimensionKeys(), a.filterBytes(), a.ordersKept(), a.matchingOrders(), a.absentKeys(),
              a.falsePositiveKeys()),
          List.of(b.dimensionKeys(), b.filterBytes(), b.ordersKept(), b.matchingOrders(), b.absentKeys(),
              b.falsePositiveKeys()));
    }
  }

  @Test
  void optionsAreParsedAndUnknownOnesRefused() {
    QuickStartDemo.Options o = QuickStartDemo.Options.parse("--orders", "1000", "--customers", "10", "--data", "x");
    assertEquals(new QuickStartDemo.Options(Path.of("x"), 1000, 10), o);
    assertNull(QuickStartDemo.Options.parse("--help"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> QuickStartDemo.Options.parse("--fast"));
    assertTrue(e.getMessage().startsWith("unknown option --fast"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> QuickStartDemo.Options.parse("--orders"));
  }

  @Test
  void aReportWithoutChecksOrWithAFailedOneDoesNotPass() {
    DemoReport report = new DemoReport("test keys");
    assertFalse(report.passed());
    report.check("first", true, "ok");
    assertTrue(report.passed());
    report.check("second", false, "differs");
    assertFalse(report.passed());
    assertTrue(report.render().contains("FAIL  second: differs"), report.render());
  }

  private record Run(DemoReport report, String output) {}

  private static Run run(QuickStartDemo.Options options) throws Exception {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    DemoReport report;
    try (PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
      report = QuickStartDemo.run(spark, options, out);
    }
    return new Run(report, buffer.toString(StandardCharsets.UTF_8));
  }

  @Test
  void theMeasuredRateIsWithinExpectationUpToFourStandardDeviations() {
    // 100,000 absent keys at an expected 0.1%: 100 expected, standard deviation about 10.
    assertTrue(phaseWith(100_000, 0).fppWithinExpectation());
    assertTrue(phaseWith(100_000, 140).fppWithinExpectation());
    assertFalse(phaseWith(100_000, 142).fppWithinExpectation());
    assertEquals(0.0014, phaseWith(100_000, 140).measuredFpp(), 1e-12);
    assertEquals(0, phaseWith(0, 0).measuredFpp());
  }

  private static DemoReport.Phase phaseWith(long absentKeys, long falsePositiveKeys) {
    return new DemoReport.Phase(1, 10, 100, 16, 1000, 100, 90, absentKeys, falsePositiveKeys, 0.001, 2, 1, 1);
  }
}
