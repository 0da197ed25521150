import type { ReactNode } from 'react';
import type { ViewId } from '../src/ui/views/views.js';
import { PartialsView } from './PartialsView.js';
import { PlanView } from './PlanView.js';
import { ProgressView } from './ProgressView.js';
import { SourcesView } from './SourcesView.js';
import { HealthView } from './HealthView.js';
import { HistoryView } from './HistoryView.js';

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
