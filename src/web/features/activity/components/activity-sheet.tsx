import { Activity } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/web/components/ui/button';
import { Dialog, DialogTitle, DialogTrigger, SheetContent } from '@/web/components/ui/dialog';
import { cn } from '@/web/lib/cn';
import { ActivityFeed } from './activity-feed';

/**
 * Below `lg`, where the feed beside the board is hidden: an Activity button that opens the same feed
 * in a sheet (the whole screen on a phone). Following a task's link closes it, for the task's drawer.
 */
export function ActivitySheetButton({ projectId, className }: { projectId: string; className?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button className={cn('lg:hidden', className)} title="Activity" data-testid="activity-open">
          <Activity aria-hidden="true" className="size-4" />
          <span className="sr-only sm:not-sr-only">Activity</span>
        </Button>
      </DialogTrigger>
      <SheetContent
        data-testid="activity-sheet"
        aria-describedby={undefined}
        className="max-sm:border-l-0 sm:max-w-sm"
      >
        <DialogTitle className="px-3 pt-3.5 pb-2 text-xs font-semibold tracking-wide text-zinc-500 uppercase">
          Activity
        </DialogTitle>
        <ActivityFeed projectId={projectId} variant="sheet" onOpenTask={() => setOpen(false)} />
      </SheetContent>
    </Dialog>
  );
}
