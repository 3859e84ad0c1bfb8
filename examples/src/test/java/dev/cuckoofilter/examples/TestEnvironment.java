package dev.cuckoofilter.examples;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What the integration tests run: the packaged jars (from the build) and the class path of Spark and
 * Hadoop, taken from the test's own class path without the project's classes and the test libraries, so
 * that the jobs and the tool in a child process come only from the jars under test.
 */
public final class TestEnvironment {
  private TestEnvironment() {}

  /** The spark-submit jar (the module's main artifact). */
  public static Path jobsJar() {
    return builtJar("jobs.jar");
  }

  /** The self-contained jar of the cuckoo tool. */
  public static Path cliJar() {
    return builtJar("cli.jar");
  }

  private static Path builtJar(String property) {
    String path = System.getProperty(property);
    if (path == null || !Files.isRegularFile(Path.of(path))) {
      throw new IllegalStateException("system property " + property + " must name the packaged jar (run the tests "
          + "with mvn verify, which packages first); it is " + path);
    }
    return Path.of(path);
  }

  /** Spark's Java 17 options (the root pom's spark.java17.opens), for child JVMs that run Spark. */
  public static List<String> sparkJavaOptions() {
    String opens = System.getProperty("spark.java17.opens");
    if (opens == null || opens.isBlank()) {
      throw new IllegalStateException("system property spark.java17.opens is not set");
    }
    return Arrays.asList(opens.trim().split("\\s+"));
  }

  /** The jars of Spark, Hadoop and their dependencies, as spark-submit or a Spark installation has them. */
  public static List<Path> sparkJars() {
    String cp = System.getProperty("surefire.test.class.path"); // failsafe runs tests from a manifest-only jar
    if (cp == null || cp.isEmpty()) {
      cp = System.getProperty("java.class.path");
    }
    List<Path> jars = new ArrayList<>();
    for (String entry : cp.split(File.pathSeparator)) {
      String unix = entry.replace(File.separatorChar, '/');
      boolean ours = unix.contains("/dev/cuckoofilter/") || unix.contains("/info/picocli/") || !unix.endsWith(".jar")
          || Files.isDirectory(Path.of(entry)) || unix.contains("/target/");
      boolean testLibrary = unix.contains("/org/junit/") || unix.contains("/org/opentest4j/")
          || unix.contains("/org/apiguardian/");
      if (!ours && !testLibrary) {
        jars.add(Path.of(entry));
      }
    }
    return jars;
  }

  /** {@link #sparkJars()} as a class path. */
  public static String sparkClasspath() {
    List<String> parts = new ArrayList<>();
    for (Path p : sparkJars()) {
      parts.add(p.toString());
    }
    return String.join(File.pathSeparator, parts);
  }
}
