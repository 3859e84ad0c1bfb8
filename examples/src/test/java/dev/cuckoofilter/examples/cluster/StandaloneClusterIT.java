package dev.cuckoofilter.examples.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.SparkSubmit;
import dev.cuckoofilter.examples.TestEnvironment;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.jobs.BuildFilterJob;
import dev.cuckoofilter.examples.jobs.PruneJoinJob;
import dev.cuckoofilter.examples.jobs.UpdateFilterJob;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.StoredFilter;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jobs on a real Spark standalone cluster on 127.0.0.1: a Master and two Workers (1 core, 1 GiB each)
 * started from the Spark jars of the test class path, the jobs jar submitted to it in client mode.
 *
 * <p>Workers launch executors with a command that Spark's launcher builds from {@code SPARK_HOME}
 * ({@code WorkerCommandBuilder}): the class path is {@code $SPARK_HOME/jars/*}, and the launcher insists
 * on knowing the Scala version (from {@code SPARK_SCALA_VERSION}, or else a source build's directories).
 * So the test makes a {@code SPARK_HOME} whose {@code jars/} links to the test's Spark jars, and sets
 * {@code SPARK_SCALA_VERSION=2.12}. Executors get the job jar from the driver ({@code spark.jars}).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StandaloneClusterIT {
  private static final long CUSTOMERS = 3000;

  @TempDir
  static Path dir;

  private static final List<Process> cluster = new ArrayList<>();
  private static SparkSession spark;
  private static SparkSubmit submit;
  private static String location;

  @BeforeAll
  static void startCluster() throws Exception {
    spark = TestSpark.session();
    // The key is customer_id on both sides: the join is a USING join, and --keys defaults to the filter's.
    spark.range(0, CUSTOMERS).selectExpr("id AS customer_id", "concat('customer-', id) AS name").write()
        .parquet(dir.resolve("customers").toString());
    spark.range(CUSTOMERS, CUSTOMERS + 500).selectExpr("id AS customer_id", "concat('customer-', id) AS name").write()
        .parquet(dir.resolve("added").toString());
    spark.range(0, CUSTOMERS + 500).selectExpr("id AS customer_id", "concat('customer-', id) AS name").write()
        .parquet(dir.resolve("current").toString());
    spark.range(0, 30_000).selectExpr("id AS order_id", "(id * 7919) % 15000 AS customer_id").write()
        .parquet(dir.resolve("orders").toString());
    location = dir.resolve("filters").resolve("customers").toString();

    Map<String, String> env = Map.of("SPARK_HOME", sparkHome().toString(), "SPARK_SCALA_VERSION", "2.12");
    int port = freePort();
    Path logs = dir.resolve("logs");
    cluster.add(ChildProcess.start(daemon("org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
        "--port", "" + port, "--webui-port", "0"), env, logs, "master"));
    awaitLine(logs, "master", "I have been elected leader");
    String master = "spark://127.0.0.1:" + port;
    for (int i = 1; i <= 2; i++) {
      cluster.add(ChildProcess.start(daemon("org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
          "--port", "0", "--webui-port", "0", "--cores", "1", "--memory", "1g",
          "--work-dir", dir.resolve("work-" + i).toString(), master), env, logs, "worker-" + i));
    }
    for (int i = 1; i <= 2; i++) {
      awaitLine(logs, "worker-" + i, "Successfully registered with master");
    }
    submit = new SparkSubmit(master, logs, "spark.executor.memory=768m",
        "spark.serializer=org.apache.spark.serializer.KryoSerializer",
        "spark.kryo.registrator=dev.cuckoofilter.spark.CuckooKryoRegistrator",
        "spark.sql.extensions=dev.cuckoofilter.spark.CuckooFilterExtensions");
  }

  @AfterAll
  static void stopCluster() throws InterruptedException {
    for (Process p : cluster) {
      ChildProcess.kill(p); // a worker's executors with it
    }
    if (spark != null) {
      spark.stop();
    }
  }

  /** A {@code SPARK_HOME} whose {@code jars/} holds links to the Spark jars of the test class path. */
  private static Path sparkHome() throws IOException {
    Path home = dir.resolve("spark-home");
    Path jars = Files.createDirectories(home.resolve("jars"));
    Files.createDirectories(home.resolve("conf"));
    for (Path jar : TestEnvironment.sparkJars()) {
      Path link = jars.resolve(jar.getFileName());
      if (Files.notExists(link)) {
        Files.createSymbolicLink(link, jar.toAbsolutePath());
      }
    }
    return home;
  }

  private static List<String> daemon(String mainClass, String... args) {
    List<String> arguments = new ArrayList<>(List.of("-Xmx256m", "-cp", TestEnvironment.sparkClasspath(), mainClass));
    arguments.addAll(List.of(args));
    return ChildProcess.java(TestEnvironment.sparkJavaOptions(), arguments);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** Waits until a daemon logs {@code text}; fails if it ends, or after a minute. */
  private static void awaitLine(Path logs, String name, String text) throws Exception {
    Process process = cluster.get(name.equals("master") ? 0 : Integer.parseInt(name.substring(7)));
    Path log = logs.resolve(name + ".err");
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains(text)) {
        return;
      }
      if (!process.isAlive()) {
        break;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(name + " did not log \"" + text + "\" (alive: " + process.isAlive() + "); log:\n"
        + (Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "none"));
  }

  /** The applications whose executors the workers ran: directories app-* of their work dirs. */
  private static Set<String> applicationsOn(int worker) throws IOException {
    Set<String> apps = new HashSet<>();
    try (Stream<Path> entries = Files.list(dir.resolve("work-" + worker))) {
      entries.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("app-")).forEach(apps::add);
    }
    return apps;
  }

  /** What the jobs below build of a dataset: the same as a build in this JVM. */
  private static byte[] filterOf(String dataset) {
    return CuckooFilters.builder(spark.read().parquet(dir.resolve(dataset).toString())).keys("customer_id")
        .expectedItems(5000).fpp(0.001).build().filter().toByteArray();
  }

  @Test
  @Order(1)
  void buildsOnTheCluster() throws Exception {
    ChildProcess.Result build = submit.run(BuildFilterJob.class, "--input", dir.resolve("customers").toString(),
        "--keys", "customer_id", "--location", location, "--expected-items", "5000", "--fpp", "0.001");
    assertEquals(0, build.exitCode(), build.describe());
    StoredFilter stored = FilterStore.open(location, spark).readLatest();
    assertArrayEquals(filterOf("customers"), stored.filter().toByteArray());
    assertEquals(1, applicationsOn(1).size(), "worker 1 ran an executor of the job");
    assertEquals(1, applicationsOn(2).size(), "worker 2 ran an executor of the job");
  }

  @Test
  @Order(2)
  void updatesOnTheCluster() throws Exception {
    ChildProcess.Result update = submit.run(UpdateFilterJob.class, "--location", location, "--added",
        dir.resolve("added").toString(), "--current", dir.resolve("current").toString());
    assertEquals(0, update.exitCode(), update.describe());
    StoredFilter stored = FilterStore.open(location, spark).readLatest();
    assertEquals(2, stored.version().version());
    assertArrayEquals(filterOf("current"), stored.filter().toByteArray());
  }

  @Test
  @Order(3)
  void prunesAJoinOnTheClusterWithExecutorsLoadingTheFilter() throws Exception {
    String output = dir.resolve("joined").toString();
    ChildProcess.Result prune = submit.run(PruneJoinJob.class, "--location", location, "--input",
        dir.resolve("orders").toString(), "--join-with", dir.resolve("current").toString(), "--output", output,
        "--load", "executors");
    assertEquals(0, prune.exitCode(), prune.describe());
    Dataset<Row> orders = spark.read().parquet(dir.resolve("orders").toString());
    Dataset<Row> customers = spark.read().parquet(dir.resolve("current").toString());
    Dataset<Row> expected = orders.join(customers, "customer_id");
    Dataset<Row> actual = spark.read().parquet(output);
    assertEquals(7000, expected.count()); // customers 0..3499 of 0..14999, twice each
    assertEquals(0, expected.exceptAll(actual).count() + actual.exceptAll(expected).count());
  }
}
