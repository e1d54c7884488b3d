import { TransportProvider } from "@connectrpc/connect-query";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode, lazy } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter, Link, Navigate, Route, Routes } from "react-router";
import { transport } from "./api";
import { Invite } from "./pages/Invite";
import { ResetPassword } from "./pages/ResetPassword";
import { SignIn } from "./pages/SignIn";
import { VerifyEmail } from "./pages/VerifyEmail";
import { SignedIn } from "./SignedIn";
import { Page } from "./ui";
import "./styles.css";

const queries = new QueryClient();

// The settings are chunks of their own, fetched when opened: the first page stays within its budget.
const Members = lazy(() => import("./pages/settings/Members"));
const ApiKeys = lazy(() => import("./pages/settings/ApiKeys"));
const Sso = lazy(() => import("./pages/settings/Sso"));
const Account = lazy(() => import("./pages/settings/Account"));
const NewMonitor = lazy(() => import("./pages/monitors/form/NewMonitor"));
const EditMonitor = lazy(() => import("./pages/monitors/form/EditMonitor"));
const MonitorPage = lazy(() => import("./pages/monitors/MonitorPage"));
const MonitorReport = lazy(() => import("./pages/monitors/MonitorReport"));
const StatusPageReport = lazy(() => import("./pages/status-pages/StatusPageReport"));
const Incidents = lazy(() => import("./pages/incidents/Incidents"));
const Incident = lazy(() => import("./pages/incidents/Incident"));
const Channels = lazy(() => import("./pages/channels/Channels"));
const NewChannel = lazy(() => import("./pages/channels/NewChannel"));
const Channel = lazy(() => import("./pages/channels/Channel"));
const AuditLog = lazy(() => import("./pages/audit/AuditLog"));
const Regions = lazy(() => import("./pages/regions/Regions"));
const StatusPages = lazy(() => import("./pages/status-pages/StatusPages"));
const StatusPageEditor = lazy(() => import("./pages/status-pages/StatusPageEditor"));
const StatusPageIncidents = lazy(() => import("./pages/status-pages/Incidents"));
const Maintenance = lazy(() => import("./pages/maintenance/Maintenance"));
const StatusPageSubscribers = lazy(() => import("./pages/status-pages/Subscribers"));
const loadOverview = () => import("./pages/monitors/Overview");
const MonitorsOverview = lazy(loadOverview);
// The landing page's chunk loads beside the session's first queries, not after them.
if (/^\/app\/(monitors\/?)?$/.test(location.pathname)) void loadOverview();

function NotFound() {
  return (
    <Page title="Page not found">
      <p>
        <Link to="/">Go to Vigil</Link>
      </p>
    </Page>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <TransportProvider transport={transport}>
      <QueryClientProvider client={queries}>
        {/* Without transitions: the filters are controls of the address (search params), and a checkbox must show its
            new state at once, not when a low-priority render gets its turn. */}
        <BrowserRouter basename="/app" useTransitions={false}>
          <Routes>
            <Route element={<SignedIn />}>
              <Route path="/" element={<Navigate to="/monitors" replace />} />
              <Route path="/monitors" element={<MonitorsOverview />} />
              <Route path="/settings/members" element={<Members />} />
              <Route path="/settings/api-keys" element={<ApiKeys />} />
              <Route path="/settings/sso" element={<Sso />} />
              <Route path="/settings/account" element={<Account />} />
              <Route path="/monitors/new" element={<NewMonitor />} />
              <Route path="/monitors/:id/edit" element={<EditMonitor />} />
              <Route path="/monitors/:id" element={<MonitorPage />} />
              <Route path="/monitors/:id/report" element={<MonitorReport />} />
              <Route path="/incidents" element={<Incidents />} />
              <Route path="/incidents/:id" element={<Incident />} />
              <Route path="/maintenance" element={<Maintenance />} />
              <Route path="/channels" element={<Channels />} />
              <Route path="/channels/new" element={<NewChannel />} />
              <Route path="/channels/:id" element={<Channel />} />
              <Route path="/settings/audit" element={<AuditLog />} />
              <Route path="/regions" element={<Regions />} />
              <Route path="/status-pages" element={<StatusPages />} />
              <Route path="/status-pages/:id" element={<StatusPageEditor />} />
              <Route path="/status-pages/:id/incidents" element={<StatusPageIncidents />} />
              <Route path="/status-pages/:id/report" element={<StatusPageReport />} />
              <Route path="/status-pages/:id/subscribers" element={<StatusPageSubscribers />} />
            </Route>
            <Route path="/sign-in" element={<SignIn />} />
            <Route path="/invite" element={<Invite />} />
            <Route path="/verify-email" element={<VerifyEmail />} />
            <Route path="/reset-password" element={<ResetPassword />} />
            <Route path="*" element={<NotFound />} />
          </Routes>
        </BrowserRouter>
      </QueryClientProvider>
    </TransportProvider>
  </StrictMode>,
);
