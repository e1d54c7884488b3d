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
        <BrowserRouter basename="/app">
          <Routes>
            <Route element={<SignedIn />}>
              <Route path="/" element={<Navigate to="/monitors" replace />} />
              <Route path="/monitors" element={<MonitorsOverview />} />
              <Route path="/settings/members" element={<Members />} />
              <Route path="/settings/api-keys" element={<ApiKeys />} />
              <Route path="/settings/sso" element={<Sso />} />
              <Route path="/settings/account" element={<Account />} />
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
