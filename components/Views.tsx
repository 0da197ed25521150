import type { ReactNode } from 'react';
import type { ViewId } from '../src/ui/views/views.js';
import { PartialsView } from './views/PartialsView.js';
import { PlanView } from './views/PlanView.js';
import { ProgressView } from './views/ProgressView.js';
import { SourcesView } from './views/SourcesView.js';
import { HealthView } from './views/HealthView.js';
import { HistoryView } from './views/HistoryView.js';

// The view registry's components, keyed like VIEWS in src/ui/views/views.ts.

export interface ViewProps {
  height: number;
  width: number;
}

export const VIEW_COMPONENTS: Record<ViewId, (p: ViewProps) => ReactNode> = {
  progress: ProgressView,
  partials: PartialsView,
  plan: PlanView,
  sources: SourcesView,
  health: HealthView,
  history: HistoryView,
};
