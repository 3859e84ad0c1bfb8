package dev.cuckoofilter.examples.common;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.cli.CuckooCli;
import dev.cuckoofilter.examples.jobs.BuildFilterJob;
import dev.cuckoofilter.examples.jobs.PruneJoinJob;
import dev.cuckoofilter.examples.jobs.UpdateFilterJob;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The command lines of the jobs and the tool: usage on {@code --help}, and bad arguments refused with exit
 * code 2 and one line naming the problem, before anything runs (no Spark session is started here).
 */
class CommandLinesTest {
  @Test
  void everyJobAndSubcommandHasHelp() {
    List<Supplier<Object>> jobs = List.of(BuildFilterJob::new, UpdateFilterJob::new, PruneJoinJob::new);
    List<String> names = List.of("build-filter", "update-filter", "prune-join");
    for (int i = 0; i < jobs.size(); i++) {
      Result help = inProcess(jobs.get(i).get(), "--help");
      assertEquals(ExitCodes.OK, help.exitCode(), help.stderr());
      assertTrue(help.stdout().startsWith("Usage: " + names.get(i) + " "), help.stdout());
    }
    for (String subcommand : List.of("info", "contains", "verify", "merge", "diff", "build")) {
      Result help = inProcess(new CuckooCli(), subcommand, "--help");
      assertEquals(ExitCodes.OK, help.exitCode(), help.stderr());
      assertTrue(help.stdout().startsWith("Usage: cuckoo " + subcommand + " "), help.stdout());
    }
  }

  @Test
  void badArgumentsAreRefusedNamingTheProblem() {
    Result missing = inProcess(new BuildFilterJob(), "--input", "/data/customers", "--keys", "id");
    assertEquals(ExitCodes.USAGE, missing.exitCode());
    assertEquals("build-filter: error: Missing required option: '--location=URI'\n"
        + "Try 'build-filter --help' for the options.\n", missing.stderr());

    Result headroom = inProcess(new BuildFilterJob(), "--input", "/d", "--keys", "id", "--location", "/f", "--headroom", "1");
    assertEquals(ExitCodes.USAGE, headroom.exitCode());
    assertTrue(headroom.stderr().startsWith("build-filter: error: --headroom must be between 1.05 and 1000.0, got 1.0\n"),
        headroom.stderr());

    // sizing that no filter can meet: refused before Spark starts, not by a failed Spark job
    Result unreachableFpp = inProcess(new BuildFilterJob(), "--input", "/d", "--keys", "id", "--location", "/f", "--fpp",
        "1e-300");
    assertEquals(ExitCodes.USAGE, unreachableFpp.exitCode(), unreachableFpp.stderr());
    assertTrue(unreachableFpp.stderr().startsWith("build-filter: error: --fpp 1.0E-300 cannot be met: fpp 1.0E-300 is "
        + "below what 32-bit fingerprints can deliver: fpp must be at least "), unreachableFpp.stderr());
    Result tooManyItems = inProcess(new BuildFilterJob(), "--input", "/d", "--keys", "id", "--location", "/f",
        "--expected-items", "99999999999999999");
    assertEquals(ExitCodes.USAGE, tooManyItems.exitCode(), tooManyItems.stderr());
    assertTrue(tooManyItems.stderr().startsWith("build-filter: error: --expected-items 99999999999999999 with --fpp 0.01 "
        + "cannot be met: expectedItems must be at most "), tooManyItems.stderr());

    Result halfASnapshot = inProcess(new UpdateFilterJob(), "--location", "/f", "--before", "/b");
    assertEquals(ExitCodes.USAGE, halfASnapshot.exitCode());
    assertTrue(halfASnapshot.stderr().startsWith("update-filter: error: Missing required argument(s): --after"),
        halfASnapshot.stderr());

    Result noChange = inProcess(new UpdateFilterJob(), "--location", "/f", "--current", "/d");
    assertEquals(ExitCodes.USAGE, noChange.exitCode());
    assertTrue(noChange.stderr().startsWith("update-filter: error: with --current, give --added, --deleted or both\n"),
        noChange.stderr());

    Result bothForms = inProcess(new UpdateFilterJob(), "--location", "/f", "--current", "/d", "--added", "/a", "--before",
        "/b", "--after", "/c");
    assertEquals(ExitCodes.USAGE, bothForms.exitCode());
    assertTrue(bothForms.stderr().contains("are mutually exclusive"), bothForms.stderr());

    Result outerJoin = inProcess(new PruneJoinJob(), "--location", "/f", "--input", "/i", "--join-with", "/j", "--output",
        "/o", "--join-type", "left_outer");
    assertEquals(ExitCodes.USAGE, outerJoin.exitCode());
    assertTrue(outerJoin.stderr().startsWith("prune-join: error: --join-type left_outer: the left side of a left_outer "
        + "join keeps its rows without a match; pruning them would change the result\n"), outerJoin.stderr());

    Result badVersion = inProcess(new CuckooCli(), "info", "/f@0");
    assertEquals(ExitCodes.USAGE, badVersion.exitCode());
    assertTrue(badVersion.stderr().contains("'/f@0' is not LOCATION or LOCATION@VERSION: versions are numbered from 1"),
        badVersion.stderr());

    Result noSubcommand = inProcess(new CuckooCli());
    assertEquals(ExitCodes.USAGE, noSubcommand.exitCode());
    assertTrue(noSubcommand.stderr().startsWith("cuckoo: error: a subcommand is needed\nUsage: cuckoo "),
        noSubcommand.stderr());
  }

  /**
   * An empty column in --keys or --join-keys is refused naming the option. It was looked up as a column named ""
   * ("has no column ;"), and --keys , gave no key column at all: build-filter and cuckoo build read their whole input
   * before failing with exit code 1 and a stack trace ('at least one key column is needed'); --keys "id," was taken
   * for id, the empty column dropped unseen.
   */
  @Test
  void emptyColumnsOfAListAreRefusedNamingTheOption() {
    String[][] refusals = {
        {"id,,name", "build-filter: error: --keys 'id,,name': COLUMN 2 of 3 is empty; give COLUMN[,COLUMN...] (blanks "
            + "around each are ignored)\n"},
        {",", "build-filter: error: --keys ',': COLUMN 1 of 2 is empty; "},
        {"id,", "build-filter: error: --keys 'id,': COLUMN 2 of 2 is empty; "},
        {"id, ,name", "build-filter: error: --keys 'id, ,name': COLUMN 2 of 3 is empty; "},
        {"", "build-filter: error: --keys '': COLUMN 1 of 1 is empty; "}};
    for (String[] refusal : refusals) {
      Result r = inProcess(new BuildFilterJob(), "--input", "/d", "--keys", refusal[0], "--location", "/f");
      assertEquals(ExitCodes.USAGE, r.exitCode(), r.stderr());
      assertTrue(r.stderr().startsWith(refusal[1]), r.stderr());
      assertTrue(r.stderr().endsWith("Try 'build-filter --help' for the options.\n"), r.stderr());
    }
    // any occurrence of a repeated option
    Result repeated = inProcess(new BuildFilterJob(), "--input", "/d", "--keys", "id", "--keys=name,", "--location", "/f");
    assertEquals(ExitCodes.USAGE, repeated.exitCode(), repeated.stderr());
    assertTrue(repeated.stderr().startsWith("build-filter: error: --keys 'name,': COLUMN 2 of 2 is empty; "),
        repeated.stderr());

    Result keys = inProcess(new PruneJoinJob(), "--location", "/f", "--input", "/i", "--keys", ",", "--join-with", "/j",
        "--output", "/o");
    assertEquals(ExitCodes.USAGE, keys.exitCode(), keys.stderr());
    assertTrue(keys.stderr().startsWith("prune-join: error: --keys ',': COLUMN 1 of 2 is empty; "), keys.stderr());
    Result joinKeys = inProcess(new PruneJoinJob(), "--location", "/f", "--input", "/i", "--keys", "a, b", "--join-with",
        "/j", "--join-keys", "a,,b", "--output", "/o");
    assertEquals(ExitCodes.USAGE, joinKeys.exitCode(), joinKeys.stderr());
    assertTrue(joinKeys.stderr().startsWith("prune-join: error: --join-keys 'a,,b': COLUMN 2 of 3 is empty; "),
        joinKeys.stderr());

    Result tool = inProcess(new CuckooCli(), "build", "/f", "--input", "/d", "--keys", ",");
    assertEquals(ExitCodes.USAGE, tool.exitCode(), tool.stderr());
    assertTrue(tool.stderr().startsWith("cuckoo build: error: --keys ',': COLUMN 1 of 2 is empty; "), tool.stderr());
    assertTrue(tool.stderr().endsWith("Try 'cuckoo build --help' for the options.\n"), tool.stderr());

    Result help = inProcess(new BuildFilterJob(), "--keys", ",", "--help");
    assertEquals(ExitCodes.OK, help.exitCode(), help.stderr());
  }

  /** Every option that splits its value is one {@link CommaSeparatedLists} strips and checks. */
  @Test
  void everyListOptionIsStrippedAndChecked() {
    List<CommandLine> commands = new ArrayList<>();
    for (Object job : List.of(new BuildFilterJob(), new UpdateFilterJob(), new PruneJoinJob())) {
      commands.add(new CommandLine(job));
    }
    commands.addAll(new CommandLine(new CuckooCli()).getSubcommands().values());
    List<String> lists = new ArrayList<>();
    for (CommandLine command : commands) {
      for (OptionSpec option : command.getCommandSpec().options()) {
        if (!option.splitRegex().isEmpty()) {
          String name = command.getCommandSpec().qualifiedName() + " " + option.longestName();
          assertTrue(CommaSeparatedLists.applies(option), name + " splits on '" + option.splitRegex() + "'");
          lists.add(name);
        }
      }
    }
    assertEquals(List.of("build-filter --keys", "prune-join --keys", "prune-join --join-keys", "cuckoo build --keys"),
        lists);
  }
}
