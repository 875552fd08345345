import DocStoreCLI
import Foundation
import CommandLineKit

var output = FileDescriptorOutputStream(fd: STDOUT_FILENO)
var errors = FileDescriptorOutputStream(fd: STDERR_FILENO)
exit(DocStore.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment,
                  output: &output, errors: &errors))
