/**
 * Inline edit review: each `edit_review` becomes a native diff between two
 * virtual documents (scheme `rift-review`): the file before, and the text
 * Apply would write — live, as hunks are toggled. A CodeLens per hunk accepts
 * or rejects it; "Apply k/n hunks" / "Reject all" lenses and the editor title
 * ✓/✗ decide. The content sent back is `HunkSelection.content()`.
 */

import * as path from 'node:path';
import * as vscode from 'vscode';

import { RiftEventMap } from './events';
import { HunkSelection, segmentsOf } from './hunks';

export const REVIEW_SCHEME = 'rift-review';

export type ReviewOutcome = 'pending' | 'applied' | 'rejected' | 'cancelled';

interface Review {
  id: number;
  path: string;
  tool: string;
  old: string;
  selection: HunkSelection;
  oldUri: vscode.Uri;
  newUri: vscode.Uri;
}

export interface ReviewCallbacks {
  /** Send the edit_decision; false when rift is gone. */
  decide(id: number, apply: boolean, content?: string): boolean;
  /** The card in the chat follows the review's state. */
  changed(id: number, state: ReviewOutcome, accepted: number, total: number): void;
}

export class ReviewManager implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider, vscode.Disposable {
  private readonly reviews = new Map<number, Review>();
  private readonly contentChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChange = this.contentChanged.event;
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  /** Bumped per rift process: review ids restart at 1, URIs must not collide. */
  private session = 1;

  constructor(private readonly callbacks: ReviewCallbacks) {}

  /** A new rift process: close what is left, start a fresh id space. */
  newProcess(): void {
    this.closeAll();
    this.session += 1;
  }

  dispose(): void {
    this.contentChanged.dispose();
    this.lensesChanged.dispose();
  }

  // ------------------------------------------------------------ lifecycle

  async open(event: RiftEventMap['edit_review'], show = true): Promise<void> {
    const base = path.basename(event.path || 'file') || 'file';
    const uri = (side: string) =>
      vscode.Uri.from({ scheme: REVIEW_SCHEME, path: `/${this.session}/${event.id}/${side}/${base}` });
    const review: Review = {
      id: event.id,
      path: event.path,
      tool: event.tool,
      old: event.old,
      selection: new HunkSelection(segmentsOf(event)),
      oldUri: uri('current'),
      newUri: uri('proposed'),
    };
    this.reviews.set(event.id, review);
    this.notify(review, 'pending');
    if (show) {
      await this.show(event.id);
    }
  }

  async show(id: number): Promise<void> {
    const review = this.reviews.get(id);
    if (!review) {
      return;
    }
    const title = `${review.path} ↔ rift's ${review.tool} (review)`;
    await vscode.commands.executeCommand('vscode.diff', review.oldUri, review.newUri, title, { preview: false });
  }

  toggle(id: number, hunk: number): void {
    const review = this.reviews.get(id);
    if (!review) {
      return;
    }
    review.selection.toggle(hunk);
    this.contentChanged.fire(review.newUri);
    this.lensesChanged.fire();
    this.notify(review, 'pending');
  }

  /** Apply the accepted hunks (all of them unless toggled). */
  apply(id: number): void {
    const review = this.reviews.get(id);
    if (!review) {
      return;
    }
    const { selection } = review;
    if (selection.accepted === 0 && selection.total > 0) {
      this.reject(id);
      return;
    }
    this.callbacks.decide(id, true, selection.content());
    this.finish(review, 'applied');
  }

  reject(id: number): void {
    const review = this.reviews.get(id);
    if (!review) {
      return;
    }
    this.callbacks.decide(id, false);
    this.finish(review, 'rejected');
  }

  /** `edit_review_closed`: rift dropped the review (turn ended or cancelled). */
  closed(id: number): void {
    const review = this.reviews.get(id);
    if (review) {
      this.finish(review, 'cancelled');
    }
  }

  /** The process ended: every open review is moot. */
  closeAll(): void {
    for (const review of [...this.reviews.values()]) {
      this.finish(review, 'cancelled');
    }
  }

  /** The review an editor shows, if it is one of ours. */
  idFor(uri: vscode.Uri | undefined): number | undefined {
    if (!uri || uri.scheme !== REVIEW_SCHEME) {
      return undefined;
    }
    const [, session, id] = uri.path.split('/');
    return Number(session) === this.session && this.reviews.has(Number(id)) ? Number(id) : undefined;
  }

  private finish(review: Review, state: ReviewOutcome): void {
    this.reviews.delete(review.id);
    this.notify(review, state);
    this.lensesChanged.fire();
    void this.closeTabs(review);
  }

  private notify(review: Review, state: ReviewOutcome): void {
    this.callbacks.changed(review.id, state, review.selection.accepted, review.selection.total);
  }

  private async closeTabs(review: Review): Promise<void> {
    const ours = (uri: vscode.Uri | undefined) =>
      uri !== undefined && (uri.toString() === review.newUri.toString() || uri.toString() === review.oldUri.toString());
    const tabs: vscode.Tab[] = [];
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        const input = tab.input;
        if (input instanceof vscode.TabInputTextDiff && (ours(input.modified) || ours(input.original))) {
          tabs.push(tab);
        } else if (input instanceof vscode.TabInputText && ours(input.uri)) {
          tabs.push(tab);
        }
      }
    }
    if (tabs.length) {
      await vscode.window.tabGroups.close(tabs, true);
    }
  }

  // ------------------------------------------------------------ providers

  provideTextDocumentContent(uri: vscode.Uri): string {
    const parts = uri.path.split('/');
    const review = Number(parts[1]) === this.session ? this.reviews.get(Number(parts[2])) : undefined;
    if (!review) {
      return '';
    }
    return parts[3] === 'current' ? review.old : review.selection.content();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const id = this.idFor(document.uri);
    const review = id === undefined ? undefined : this.reviews.get(id);
    if (!review || document.uri.toString() !== review.newUri.toString()) {
      return [];
    }
    const { selection } = review;
    const last = Math.max(0, document.lineCount - 1);
    const at = (line: number) => new vscode.Range(Math.min(line, last), 0, Math.min(line, last), 0);
    const lenses = [
      new vscode.CodeLens(at(0), {
        title: `✓ ${selection.applyLabel()}`,
        command: 'rift.reviewApply',
        arguments: [review.id],
      }),
      new vscode.CodeLens(at(0), { title: '✗ Reject all', command: 'rift.reviewReject', arguments: [review.id] }),
    ];
    for (const span of selection.spans('result')) {
      const n = `${span.hunk + 1}/${selection.total}`;
      lenses.push(
        new vscode.CodeLens(at(span.start), {
          title: span.accepted ? `✓ hunk ${n} accepted — reject` : `✗ hunk ${n} rejected — accept`,
          tooltip: span.accepted ? 'Keep the current text for this hunk' : "Take rift's change for this hunk",
          command: 'rift.reviewToggle',
          arguments: [review.id, span.hunk],
        }),
      );
    }
    return lenses;
  }
}
