package dev.cuckoofilter.examples.cli;

import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.TestEnvironment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Runs the {@code cuckoo} tool in tests: in this JVM through picocli, or as its jar in a process of its own. */
final class CuckooTool {
  private CuckooTool() {}

  /** Runs the tool in this JVM. */
  static ChildProcess.Result inProcess(String... args) {
    return ChildProcess.inProcess(new CuckooCli(), args);
  }

  /** Runs the tool's jar as {@code java -jar}, without Spark on the class path; its output goes to logDir. */
  static ChildProcess.Result jar(Path logDir, String name, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("-jar", TestEnvironment.cliJar().toString()));
    command.addAll(List.of(args));
    return ChildProcess.run(ChildProcess.java(List.of("-Xmx512m"), command), Map.of(), logDir, name);
  }
}
