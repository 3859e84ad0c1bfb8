package dev.cuckoofilter.examples.cli;

import dev.cuckoofilter.examples.common.CommandRunner;
import dev.cuckoofilter.examples.common.ExitCodes;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code cuckoo}: a command-line tool for stored cuckoo filters on any Hadoop file system, without Spark.
 * It runs from the self-contained {@code -cli} jar of this module ({@code java -jar}); see docs/JOBS.md.
 *
 * <pre>
 * cuckoo info s3a://lake/filters/customers
 * cuckoo contains s3a://lake/filters/customers 42 17
 * cuckoo build file:/tmp/filters/customers --input /data/customers --keys customer_id --fpp 0.001
 * </pre>
 */
@Command(name = "cuckoo", usageHelpAutoWidth = true,
    description = "Inspects, checks, merges, compares and builds stored cuckoo filters on any Hadoop file system "
        + "(file:, hdfs:, s3a:, ...), without Spark.",
    subcommands = {InfoCommand.class, ContainsCommand.class, VerifyCommand.class, MergeCommand.class,
        DiffCommand.class, BuildCommand.class, HelpCommand.class})
public final class CuckooCli implements Callable<Integer> {
  /** Log4j 2 configuration of the tool: warnings and errors only, on stderr. */
  private static final String LOG_CONFIGURATION = "dev/cuckoofilter/examples/cli/log4j2-cli.properties";

  @Spec
  CommandSpec spec;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
  boolean help;

  private final Map<String, String> hadoopSettings = new LinkedHashMap<>();

  /** Runs the tool and exits with its exit code (docs/JOBS.md, "Exit codes"). */
  public static void main(String[] args) {
    if (System.getProperty("log4j2.configurationFile") == null) {
      System.setProperty("log4j2.configurationFile", LOG_CONFIGURATION);
    }
    System.exit(CommandRunner.execute(new CuckooCli(), args));
  }

  /** Without a subcommand: the usage, as an error. */
  @Override
  public Integer call() {
    spec.commandLine().getErr().println("cuckoo: error: a subcommand is needed");
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.USAGE;
  }

  /**
   * {@code --conf}, before or after the subcommand. Picocli collects the values of each position apart
   * (an inherited option is the subcommand's own copy), so they are merged here.
   */
  @Option(names = "--conf", paramLabel = "KEY=VALUE", scope = ScopeType.INHERIT,
      description = "A Hadoop configuration setting (an S3 endpoint, credentials provider, ...); repeatable. "
          + "core-site.xml on the class path is read too.")
  void addHadoopSettings(Map<String, String> settings) {
    hadoopSettings.putAll(settings);
  }

  /** The Hadoop configuration for file systems: the defaults plus {@code --conf} settings. */
  Configuration hadoopConf() {
    Configuration conf = new Configuration();
    hadoopSettings.forEach(conf::set);
    return conf;
  }
}
