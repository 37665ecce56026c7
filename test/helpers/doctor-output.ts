/** What `fed doctor` prints of a federation that no `fed serve` runs. */
export const NO_SERVER_LINE =
  'fed serve: not running — teams are launched only by fed launch and fed run (start it: fed serve)\n';
