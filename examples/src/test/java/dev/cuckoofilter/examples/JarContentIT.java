package dev.cuckoofilter.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * What the two jars hold: the spark-submit jar only the project's classes and picocli (Spark, Hadoop,
 * Scala and Jackson come from the cluster), the tool's jar everything it needs to run without Spark, and
 * no Spark.
 */
class JarContentIT {
  private static List<String> entries(Path jar) throws IOException {
    List<String> names = new ArrayList<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      file.stream().map(ZipEntry::getName).forEach(names::add);
    }
    return names;
  }

  @Test
  void theSparkSubmitJarHoldsTheProjectAndPicocliOnly() throws IOException {
    List<String> entries = entries(TestEnvironment.jobsJar());
    for (String expected : List.of("dev/cuckoofilter/examples/jobs/BuildFilterJob.class",
        "dev/cuckoofilter/examples/jobs/UpdateFilterJob.class", "dev/cuckoofilter/examples/jobs/PruneJoinJob.class",
        "dev/cuckoofilter/spark/CuckooFilters.class", "dev/cuckoofilter/core/CuckooFilter.class",
        "picocli/CommandLine.class")) {
      assertTrue(entries.contains(expected), expected);
    }
    List<String> foreign = entries.stream().filter(e -> !e.endsWith("/")) // directories hold nothing themselves
        .filter(e -> !e.startsWith("dev/cuckoofilter/") && !e.startsWith("picocli/") && !e.startsWith("META-INF/"))
        .toList();
    assertEquals(List.of(), foreign);
    List<String> bundledLibraries = entries.stream()
        .filter(e -> e.startsWith("META-INF/maven/") && e.endsWith("/pom.xml"))
        .filter(e -> !e.startsWith("META-INF/maven/dev.cuckoofilter/") && !e.startsWith("META-INF/maven/info.picocli/"))
        .toList();
    assertEquals(List.of(), bundledLibraries);
  }

  @Test
  void theToolsJarRunsWithoutSparkAndHasNone() throws IOException {
    List<String> entries = entries(TestEnvironment.cliJar());
    for (String expected : List.of("dev/cuckoofilter/examples/cli/CuckooCli.class",
        "org/apache/parquet/hadoop/ParquetReader.class", "org/apache/hadoop/fs/FileSystem.class",
        "com/fasterxml/jackson/databind/ObjectMapper.class", "dev/cuckoofilter/examples/cli/log4j2-cli.properties")) {
      assertTrue(entries.contains(expected), expected);
    }
    assertEquals(List.of(), entries.stream().filter(e -> e.startsWith("org/apache/spark/") || e.startsWith("scala/"))
        .toList());
    try (JarFile jar = new JarFile(TestEnvironment.cliJar().toFile())) {
      assertEquals("dev.cuckoofilter.examples.cli.CuckooCli",
          jar.getManifest().getMainAttributes().getValue("Main-Class"));
    }
  }
}
