export {
  TEAM_STATUS_MACHINE_ID,
  TEAM_STATUS_MACHINE_VERSION,
  teamStatusEventSchema,
  teamStatusMachine,
  type TeamStatusEvent,
} from './team-status.machine.js';
