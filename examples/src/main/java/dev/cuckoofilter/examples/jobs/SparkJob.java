package dev.cuckoofilter.examples.jobs;

import dev.cuckoofilter.examples.common.CommandRunner;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A spark-submit job: picocli parses and checks its options, then {@link #run} does the work in the
 * session spark-submit configured ({@code getOrCreate}, so a test can run a job in its own session).
 * Exit codes are those of {@link dev.cuckoofilter.examples.common.ExitCodes}.
 */
abstract class SparkJob implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
  boolean help;

  @Override
  public final Integer call() throws Exception {
    checkOptions();
    SparkSession spark = SparkSession.builder().appName("cuckoo " + spec.name()).getOrCreate();
    return run(spark, spec.commandLine().getOut());
  }

  /**
   * Checks combinations of options that picocli's declarations cannot express, before Spark starts.
   *
   * @throws picocli.CommandLine.ParameterException naming the options
   */
  void checkOptions() {
    // most jobs have none
  }

  /**
   * The job's work, once its options are valid.
   *
   * @param out where the job reports what it did
   * @return the exit code
   */
  abstract int run(SparkSession spark, PrintWriter out) throws Exception;

  /**
   * The body of a job's {@code main}: runs it, stops the Spark session it used, and exits the JVM with
   * the job's exit code (spark-submit then exits with the same code).
   */
  static void runAndExit(SparkJob job, String[] args) {
    int code = CommandRunner.execute(job, args);
    scala.Option<SparkSession> session = SparkSession.getDefaultSession();
    if (session.isDefined()) {
      session.get().stop();
    }
    System.exit(code);
  }
}
