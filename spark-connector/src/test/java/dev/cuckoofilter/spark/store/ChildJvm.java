package dev.cuckoofilter.spark.store;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A JVM started by a test, running a main class of the test classpath; killed or awaited by the test. */
final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final BufferedReader stdout;
  private final List<String> lines = new ArrayList<>();

  private ChildJvm(Process process) {
    this.process = process;
    this.stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /** The test JVM's classpath (surefire runs tests from a manifest-only jar and publishes the real one). */
  static String testClasspath() {
    String cp = System.getProperty("surefire.test.class.path");
    return cp != null && !cp.isEmpty() ? cp : System.getProperty("java.class.path");
  }

  /** Starts {@code mainClass} with {@code classpath}; its stderr goes to {@code log}. */
  static ChildJvm start(String classpath, Class<?> mainClass, File log, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(new File(System.getProperty("java.home"), "bin/java").getPath());
    command.add("-Xmx256m");
    command.add("-cp");
    command.add(classpath);
    command.add(mainClass.getName());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log));
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return new ChildJvm(pb.start());
  }

  /** Reads stdout until a line matches; fails if the process ends first. */
  String awaitLine(Predicate<String> matching) throws IOException {
    String line;
    while ((line = stdout.readLine()) != null) {
      lines.add(line);
      if (matching.test(line)) {
        return line;
      }
    }
    throw new IllegalStateException("child JVM ended (exit " + waitQuietly() + ") without the expected line; stdout: "
        + lines);
  }

  /** SIGKILL on Unix: no shutdown hooks, no finally blocks, like a crashed or killed executor. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** Waits for the end; returns the exit code. */
  int await() throws InterruptedException {
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("child JVM did not end within 120 s");
    }
    return process.exitValue();
  }

  private int waitQuietly() {
    try {
      return process.waitFor(10, TimeUnit.SECONDS) ? process.exitValue() : -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
