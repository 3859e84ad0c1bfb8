package dev.cuckoofilter.spark.optimizer;

import dev.cuckoofilter.spark.SparkTestSession;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;

/**
 * Another Spark application, in its own JVM, that sets up the same views over the same files as a test and
 * reports whether a join uses the stored filter registered for one of them:
 * {@code <fact path> <dimension path> <view definition> <filter location>} (a location ending in
 * {@code filters/dim_shared}); prints {@code fingerprint=...} and {@code used=true|false}.
 */
public final class OtherApplication {
  public static void main(String[] args) {
    SparkSession spark = SparkTestSession.builder("local[1]")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config(RuntimeFilterConf.FORCE, "true")
        .getOrCreate();
    try {
      spark.read().parquet(args[0]).createOrReplaceTempView("fact");
      spark.read().parquet(args[1]).createOrReplaceTempView("dim_all");
      spark.sql("CREATE OR REPLACE TEMP VIEW dim_shared AS " + args[2]);
      StoredFilterIndex.register(spark, "dim_shared", args[3]);
      System.out.println("fingerprint=" + StoredFilterIndex.fingerprint(
          spark.table("dim_shared").queryExecution().optimizedPlan(), List.of("k")));
      String plan = spark.sql("SELECT f.k, f.v FROM fact f JOIN dim_shared d ON f.k = d.k")
          .queryExecution().optimizedPlan().toString();
      System.out.println("used=" + plan.contains("filters/dim_shared"));
    } finally {
      spark.stop();
    }
  }

  /** Runs {@link #main} in a new JVM with this JVM's options (Spark's --add-opens) and test classpath; its stdout. */
  static List<String> run(File log, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(new File(System.getProperty("java.home"), "bin/java").getPath());
    command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
    command.add("-Xmx1g");
    String cp = System.getProperty("surefire.test.class.path");
    command.add("-cp");
    command.add(cp != null && !cp.isEmpty() ? cp : System.getProperty("java.class.path"));
    command.add(OtherApplication.class.getName());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log));
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    Process process = pb.start();
    try {
      byte[] out = process.getInputStream().readAllBytes();
      if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException("the other application failed (exit " + process.exitValue() + "), see " + log);
      }
      return List.of(new String(out, StandardCharsets.UTF_8).split("\n"));
    } finally {
      process.destroyForcibly();
    }
  }
}
