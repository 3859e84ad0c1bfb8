package dev.cuckoofilter.examples.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The notebooks of {@code notebooks/}: each is executed headless with {@code jupyter nbconvert --execute} in
 * the project's Java kernel (the kernel spec this module's build writes to {@code target/jupyter}) and must
 * run every cell without an error; and the committed files must carry their outputs, so that they read well
 * without running them. Executions write to a temporary directory, never over the committed notebooks.
 *
 * <p>Without Jupyter ({@code jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-client}, which
 * {@code .ci/run} installs) the executions are skipped, except when the environment variable {@code CI} is
 * set: then they fail, so that CI cannot pass without running them.
 */
class NotebooksTest {
  static final Path NOTEBOOKS = Path.of(System.getProperty("notebooks.dir", "../notebooks")).toAbsolutePath()
      .normalize();
  static final Path JUPYTER_DIR = Path.of(System.getProperty("notebooks.jupyter.dir", "target/jupyter"))
      .toAbsolutePath().normalize();
  /** The jupyter command: {@code -Dnotebooks.jupyter=/path/to/jupyter} for one outside the PATH. */
  static final String JUPYTER = System.getProperty("notebooks.jupyter", "jupyter");
  /** The kernel spec the build writes (examples/src/jupyter/kernels) and every notebook names. */
  static final String KERNEL = "spark-cuckoo-java";
  static final List<String> EXPECTED = List.of("01-filter-core.ipynb", "02-paper-results.ipynb",
      "03-spark-pruning.ipynb");
  static final ObjectMapper JSON = new ObjectMapper();

  static Stream<String> notebooks() {
    return EXPECTED.stream();
  }

  @Test
  void theNotebooksAreTheExpectedOnes() throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(NOTEBOOKS)) {
      files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".ipynb")).sorted().forEach(found::add);
    }
    // A new notebook must be added to EXPECTED, so that it is executed too.
    assertEquals(EXPECTED, found);
  }

  @ParameterizedTest
  @MethodSource("notebooks")
  void theCommittedNotebookCarriesTheOutputsOfARunWithoutErrors(String name) throws IOException {
    JsonNode notebook = JSON.readTree(NOTEBOOKS.resolve(name).toFile());
    assertEquals(KERNEL, notebook.path("metadata").path("kernelspec").path("name").asText(), name);
    int codeCells = 0;
    int withOutput = 0;
    int images = 0;
    for (JsonNode cell : notebook.path("cells")) {
      if (!cell.path("cell_type").asText().equals("code")) {
        continue;
      }
      codeCells++;
      String source = text(cell.path("source"));
      assertFalse(cell.path("execution_count").isNull(), name + ": a cell was not executed: " + source);
      if (!cell.path("outputs").isEmpty()) {
        withOutput++;
      }
      for (JsonNode output : cell.path("outputs")) {
        assertNotEquals("error", output.path("output_type").asText(), name + ": a cell failed: " + source);
        if (output.path("data").has("image/png")) {
          images++;
        }
      }
    }
    assertTrue(codeCells > 0 && withOutput >= codeCells / 2, name + ": " + withOutput + " of " + codeCells
        + " code cells have outputs; commit the notebook executed (notebooks/README.md)");
    if (!name.startsWith("01")) {
      assertTrue(images >= 2, name + ": the plots are missing from the committed notebook");
    }
  }

  @ParameterizedTest
  @MethodSource("notebooks")
  void theNotebookRunsWithoutErrors(String name, @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir)
      throws Exception {
    requireJupyter();
    Path log = dir.resolve("nbconvert.log");
    ProcessBuilder nbconvert = new ProcessBuilder(JUPYTER, "nbconvert", "--to", "notebook", "--execute",
        "--ExecutePreprocessor.timeout=900", "--ExecutePreprocessor.startup_timeout=300",
        "--output-dir", dir.toString(), "--output", name, NOTEBOOKS.resolve(name).toString())
        .directory(NOTEBOOKS.toFile())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    Map<String, String> env = nbconvert.environment();
    String inherited = env.get("JUPYTER_PATH");
    env.put("JUPYTER_PATH", JUPYTER_DIR + (inherited == null ? "" : File.pathSeparator + inherited));
    env.put("JUPYTER_RUNTIME_DIR", dir.resolve("runtime").toString());
    Process process = nbconvert.start();
    if (!process.waitFor(20, TimeUnit.MINUTES)) {
      // The kernel JVM is a child of nbconvert: stop it too.
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      fail(name + " did not finish in 20 minutes; log " + log + ":\n" + tail(log));
    }
    if (process.exitValue() != 0) {
      fail(name + " failed (nbconvert exit code " + process.exitValue() + "); log " + log + ":\n" + tail(log));
    }
    JsonNode executed = JSON.readTree(dir.resolve(name).toFile());
    for (JsonNode cell : executed.path("cells")) {
      if (cell.path("cell_type").asText().equals("code")) {
        assertFalse(cell.path("execution_count").isNull(), name + ": a cell did not run: " + text(cell.path("source")));
      }
    }
  }

  /** Skips without Jupyter, or fails when {@code CI} is set. */
  static void requireJupyter() throws InterruptedException {
    String problem = jupyterProblem();
    if (problem == null) {
      return;
    }
    String install = "apt-get install -y jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-client";
    String ci = System.getenv("CI");
    if (ci != null && !ci.isEmpty()) {
      fail("CI is set but the notebooks cannot be executed: " + problem + " (.ci/run installs Jupyter with: "
          + install + ")");
    }
    Assumptions.abort("notebooks not executed: " + problem + "; install Jupyter with: " + install);
  }

  /** Null if {@code jupyter nbconvert} runs, otherwise what is wrong. */
  private static String jupyterProblem() throws InterruptedException {
    try {
      Process p = new ProcessBuilder(JUPYTER, "nbconvert", "--version").redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(2, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        return "'jupyter nbconvert --version' did not finish";
      }
      return p.exitValue() == 0 ? null : "'jupyter nbconvert --version' failed: " + output;
    } catch (IOException e) {
      return "there is no " + JUPYTER + " command (" + e.getMessage() + ")";
    }
  }

  /** The end of nbconvert's log, without the kernel's line per class path entry. */
  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
        .filter(l -> !l.startsWith("Parsing classpath: ") && !(l.startsWith("Add ") && l.endsWith(" to classpath")))
        .toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
  }

  private static String text(JsonNode source) {
    if (source.isArray()) {
      StringBuilder s = new StringBuilder();
      source.forEach(line -> s.append(line.asText()));
      return s.toString();
    }
    return source.asText();
  }
}
