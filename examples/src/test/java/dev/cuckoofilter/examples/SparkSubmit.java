package dev.cuckoofilter.examples;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs a job of the jobs jar through Spark's real entry point, {@code org.apache.spark.deploy.SparkSubmit},
 * in a separate JVM, as {@code spark-submit} does: the JVM has Spark's class path and Java options, and the
 * job jar is the application resource.
 */
public final class SparkSubmit {
  private final String master;
  private final Path logDir;
  private final List<String> extraConf;
  private int runs;

  /**
   * @param master    {@code local[2]} or a cluster's {@code spark://} URL (client deploy mode)
   * @param logDir    where each run's stdout and stderr go
   * @param extraConf further {@code --conf key=value} settings
   */
  public SparkSubmit(String master, Path logDir, String... extraConf) {
    this.master = master;
    this.logDir = logDir;
    this.extraConf = List.of(extraConf);
  }

  /** Submits {@code jobClass} with {@code args} and waits for it to end. */
  public synchronized ChildProcess.Result run(Class<?> jobClass, String... args)
      throws IOException, InterruptedException {
    List<String> arguments = new ArrayList<>(List.of("-Xmx1g", "-cp", TestEnvironment.sparkClasspath(),
        "org.apache.spark.deploy.SparkSubmit", "--master", master, "--deploy-mode", "client",
        "--class", jobClass.getName(),
        "--conf", "spark.driver.host=127.0.0.1",
        "--conf", "spark.driver.bindAddress=127.0.0.1",
        "--conf", "spark.ui.enabled=false",
        "--conf", "spark.sql.shuffle.partitions=4",
        "--conf", "spark.sql.session.timeZone=UTC"));
    for (String conf : extraConf) {
      arguments.add("--conf");
      arguments.add(conf);
    }
    arguments.add(TestEnvironment.jobsJar().toString());
    arguments.addAll(List.of(args));
    List<String> command = ChildProcess.java(TestEnvironment.sparkJavaOptions(), arguments);
    runs++;
    return ChildProcess.run(command, Map.of(), logDir, jobClass.getSimpleName() + "-" + runs);
  }
}
