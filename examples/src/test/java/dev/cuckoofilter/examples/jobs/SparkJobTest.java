package dev.cuckoofilter.examples.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.ExitCodes;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** Tests of the jobs run in this JVM: one Spark session and one temporary directory per test class. */
abstract class SparkJobTest {
  @TempDir
  static Path dir;

  static SparkSession spark;

  @BeforeAll
  static void startSpark() {
    spark = TestSpark.session();
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  /** A filter location of the given name in the class's directory. */
  static String location(String name) {
    return dir.resolve("filters").resolve(name).toString();
  }

  /** A job's refusal of its input: exit code 2 and one line starting with {@code start}, no stack trace. */
  static void assertRefused(String start, Result r) {
    assertEquals(ExitCodes.USAGE, r.exitCode(), r.describe());
    assertTrue(r.stderr().startsWith(start), r.describe());
    assertFalse(r.stderr().contains("\tat "), "no stack trace: " + r.describe());
  }
}
