package dev.cuckoofilter.examples;

import dev.cuckoofilter.examples.common.CommandRunner;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A java process started by a test, with its output in files next to the test's data. */
public final class ChildProcess {
  /** Time a child may take; beyond it is a hang, and the process is killed. */
  private static final long TIMEOUT_SECONDS = 180;

  private ChildProcess() {}

  /**
   * What a finished process did.
   *
   * @param exitCode its exit code
   * @param stdout   everything it wrote to stdout
   * @param stderr   everything it wrote to stderr
   */
  public record Result(int exitCode, String stdout, String stderr) {
    /** For assertion messages. */
    public String describe() {
      return "exit " + exitCode + "\n--- stdout:\n" + stdout + "\n--- stderr (last 6000 chars):\n"
          + stderr.substring(Math.max(0, stderr.length() - 6000));
    }
  }

  /** Runs a job or the tool in this JVM, as its {@code main} would (picocli, exit code, output). */
  public static Result inProcess(Object command, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = CommandRunner.execute(command, new PrintWriter(out), new PrintWriter(err), args);
    return new Result(code, out.toString(), err.toString());
  }

  /** The {@code java} of the test JVM with {@code options}, then {@code arguments} (main class or -jar, ...). */
  public static List<String> java(List<String> options, List<String> arguments) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(options);
    command.addAll(arguments);
    return command;
  }

  /**
   * Runs {@code command} to its end, with {@code SPARK_LOCAL_IP=127.0.0.1} and {@code env} added to the
   * environment, its output going to {@code logDir/name.out} and {@code .err}.
   */
  public static Result run(List<String> command, Map<String, String> env, Path logDir, String name)
      throws IOException, InterruptedException {
    Process process = start(command, env, logDir, name);
    if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      kill(process);
      throw new IllegalStateException(name + " did not end within " + TIMEOUT_SECONDS + " s; output in " + logDir);
    }
    return new Result(process.exitValue(), Files.readString(logDir.resolve(name + ".out"), StandardCharsets.UTF_8),
        Files.readString(logDir.resolve(name + ".err"), StandardCharsets.UTF_8));
  }

  /** Starts {@code command} as {@link #run} does, without waiting for it. */
  public static Process start(List<String> command, Map<String, String> env, Path logDir, String name)
      throws IOException {
    Files.createDirectories(logDir);
    ProcessBuilder pb = new ProcessBuilder(command)
        .redirectOutput(logDir.resolve(name + ".out").toFile())
        .redirectError(logDir.resolve(name + ".err").toFile());
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    pb.environment().putAll(env);
    return pb.start();
  }

  /** Ends a process and everything it started (executors of a Spark worker), forcibly if it lingers. */
  public static void kill(Process process) throws InterruptedException {
    List<ProcessHandle> descendants = process.descendants().toList();
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(20, TimeUnit.SECONDS);
    }
    for (ProcessHandle child : descendants) {
      child.destroyForcibly();
    }
  }
}
